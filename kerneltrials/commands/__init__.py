"""One module per ``kerneltrials`` subcommand; see ``kerneltrials.cli``."""
