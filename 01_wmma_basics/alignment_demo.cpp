// The broken-rules demo: the child runs the unchecked kernel, the parent only reads its report.
#include "01_wmma_basics/alignment_demo.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>

#include "01_wmma_basics/product_check.hpp"

extern char** environ;

namespace tcu::wmma_basics {

namespace {
constexpr const char* kOutcomePrefix = "outcome: ";
constexpr unsigned kChildTimeLimitSeconds = 120;  // a hung child must not hang the lesson
}  // namespace

int run_broken_case_here(int id, Dist dist, std::uint64_t seed, int device) {
  if (id < 1 || id > kBrokenCaseCount) {
    std::cout << kOutcomePrefix << "there is no broken case " << id << "\n";
    return 2;
  }
  alarm(kChildTimeLimitSeconds);
  TCU_CUDA_CHECK(cudaSetDevice(device));
  constexpr MmaShape s = kShape16x16x16;
  std::size_t a_offset = 0;  // in halves, from a cudaMalloc'ed (256-byte aligned) buffer
  unsigned lda = s.k;
  switch (id) {
    case 1: a_offset = 1; break;
    case 2: a_offset = 8; break;
    default: lda = 20; break;  // rows do not overlap (20 >= 16), but 40 bytes is no multiple of 16
  }
  const std::size_t a_count = a_offset + tile_span(Layout::row_major, lda, s.m, s.k);
  const HostDeviceTile<__half> a = make_input<__half>(a_count, dist, seed, 0);
  const HostDeviceTile<__half> b = make_input<__half>(static_cast<std::size_t>(s.k) * s.n, dist, seed, a_count);
  DeviceBuffer<float> d = poisoned_output<float>(static_cast<std::size_t>(s.m) * s.n);

  // The rule-breaking call. The checked wrapper would have refused it (cudaErrorInvalidValue).
  cudaError_t err =
      unchecked::mma_16x16x16_f16_f32acc(a.device.data() + a_offset, lda, b.device.data(), static_cast<unsigned>(s.n),
                                         d.data(), static_cast<unsigned>(s.n));
  if (err == cudaSuccess) err = cudaDeviceSynchronize();  // faults raised while running land here
  if (err != cudaSuccess) {
    std::cout << kOutcomePrefix << "kernel error " << cudaGetErrorName(err) << " (" << cudaGetErrorString(err)
              << "); the CUDA context of that process is now unusable" << std::endl;
    return 0;
  }
  std::vector<float> d_host(d.size());
  d.copy_to_host(d_host.data(), d_host.size());
  // What the caller meant: the tile that starts at that address with that leading dimension.
  const ProductReference want =
      reference_product(a.host.data() + a_offset, Layout::row_major, lda, b.host.data(), Layout::row_major, 0, s);
  const VerifyResult r = verify_tile(d_host, Layout::row_major, 0, want, s,
                                     product_tolerance(s.k, NumType::fp16, NumType::fp32, NumType::fp32, dist));
  std::ostringstream os;
  if (r.pass)
    os << "no error, and D is the intended product: undefined behaviour that happened to work on this GPU";
  else
    os << "no error, but D is wrong in " << (r.mismatches + r.non_finite) << " of " << r.count
       << " elements: undefined behaviour, silently";
  std::cout << kOutcomePrefix << os.str() << std::endl;
  return 0;
}

BrokenCaseReport run_broken_case_in_child(int id, const std::vector<std::string>& extra_args) {
  BrokenCaseReport report;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    report.outcome = std::string("demo failed: pipe2: ") + std::strerror(errno);
    return report;
  }
  std::vector<std::string> args = {"01_wmma_basics", "--internal-broken-case=" + std::to_string(id)};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);  // the child's stdout -> our pipe
  pid_t pid = 0;
  // posix_spawn starts a fresh program (no fork-without-exec of a process that holds a CUDA
  // context); /proc/self/exe is this very executable.
  const int spawn_rc = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (spawn_rc != 0) {
    close(fds[0]);
    report.outcome = std::string("demo failed: posix_spawn: ") + std::strerror(spawn_rc);
    return report;
  }

  std::string output;
  char buf[512];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0)
      output.append(buf, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR)
      break;
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }

  std::istringstream lines(output);
  std::string line, outcome;
  while (std::getline(lines, line))
    if (line.rfind(kOutcomePrefix, 0) == 0) outcome = line.substr(std::strlen(kOutcomePrefix));

  if (!outcome.empty()) {
    report.observed = true;
    report.outcome = outcome;
  } else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
    report.outcome = "demo failed: the child ran out of its " + std::to_string(kChildTimeLimitSeconds) + " s";
  } else if (WIFSIGNALED(status)) {
    report.observed = true;  // dying is one of the things undefined behaviour may do
    report.outcome = std::string("the child process died from signal ") + std::to_string(WTERMSIG(status)) + " (" +
                     strsignal(WTERMSIG(status)) + ")";
  } else {
    report.outcome = "demo failed: the child exited with code " +
                     std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + " and reported nothing";
  }
  return report;
}

}  // namespace tcu::wmma_basics
