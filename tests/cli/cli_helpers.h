// Shared by the CLI tests: run the real locsim binary, capture exit code, stdout and stderr, and
// read its JSON statistics.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace cli_test {

struct Result {
  int code = -1;
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A per-process temporary path (tests run in parallel processes).
inline std::string tmp(const std::string& name) {
  return "/tmp/locsim_cli_" + std::to_string(getpid()) + "_" + name;
}

// Runs locsim; with limit_s > 0 under `timeout` (exit 124 when the run was still going). Without
// SYSTEMC_DISABLE_COPYRIGHT_MESSAGE: locsim silences SystemC's banner itself, and the tests that
// count stderr lines would see it if it did not.
// Runs a shell command line with no input, capturing its exit code, stdout and stderr.
inline Result run_shell(const std::string& cmd) {
  const std::string o = tmp("out"), e = tmp("err");
  const std::string full = cmd + " >" + o + " 2>" + e + " </dev/null";
  const int st = std::system(full.c_str());
  Result r;
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = slurp(o);
  r.err = slurp(e);
  std::remove(o.c_str());
  std::remove(e.c_str());
  return r;
}

inline Result locsim_limited(const std::string& args, int limit_s) {
  const std::string limit =
      limit_s > 0 ? "timeout -k 5 " + std::to_string(limit_s) + " " : std::string();
  return run_shell(
      std::string("env -u SYSTEMC_DISABLE_COPYRIGHT_MESSAGE -u LOCSIM_SYSTEMC_BANNER ") + limit +
      LOCSIM_BIN + " " + args);
}

inline Result locsim(const std::string& args) {
  return locsim_limited(args, 0);
}

inline int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// Runs `args` (a complete command line after the binary) quietly; requires exit 0 and returns
// the JSON statistics.
inline nlohmann::json run_json(const std::string& args, const std::string& tag = "stats") {
  const std::string j = tmp(tag + ".json");
  Result r = locsim(args + " --quiet --stats-json " + j);
  INFO(r.err);
  REQUIRE(r.code == 0);
  auto js = nlohmann::json::parse(slurp(j));
  std::remove(j.c_str());
  return js;
}

}  // namespace cli_test
