// `locsim sweep --slurm` against a real single-node Slurm (slurm-wlm + munge, started by
// scripts/slurm_local.sh). Under CI=true a Slurm that cannot be started fails the test; elsewhere
// the test is skipped with a warning.
#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "cli_helpers.h"

using namespace cli_test;

namespace {
int shell(const std::string& cmd, std::string& out) {
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return -1;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  const int st = pclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// SLURM_CONF of a running cluster, starting the local one if needed; empty if impossible.
bool ensure_slurm(std::string& why) {
  std::string out;
  const int rc = shell(std::string(LOCSIM_SOURCE_DIR) + "/scripts/slurm_local.sh start 2>&1", out);
  const std::string line = trim(
      out.substr(out.rfind("SLURM_CONF=") == std::string::npos ? 0 : out.rfind("SLURM_CONF=")));
  if (rc != 0 || line.rfind("SLURM_CONF=", 0) != 0) {
    why = trim(out);
    return false;
  }
  setenv("SLURM_CONF", line.substr(11).c_str(), 1);
  return true;
}

std::string count_rows(const std::string& db, const std::string& where) {
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  std::string out;
  const std::string sql = "SELECT COUNT(*) FROM runs WHERE " + where;
  sqlite3_exec(
      h, sql.c_str(),
      [](void* o, int, char** v, char**) {
        *static_cast<std::string*>(o) = v[0] ? v[0] : "NULL";
        return 0;
      },
      &out, nullptr);
  sqlite3_close(h);
  return out;
}
}  // namespace

TEST_CASE("slurm cli: a sweep runs as a job array on a real Slurm and is collected",
          "[cli][sweep][slurm]") {
  std::string why;
  if (!ensure_slurm(why)) {
    const char* ci = std::getenv("CI");
    if (ci && std::string(ci) == "true") FAIL("Slurm could not be started under CI: " << why);
    WARN("skipped: no Slurm here (" << why << ")");
    return;
  }
  const std::string spec = tmp("slurm.json"), out = tmp("slurm.out");
  REQUIRE(std::system(("rm -rf " + out).c_str()) == 0);
  {
    std::ofstream f(spec);
    f << R"({"platforms": ["fermi"], "workloads": [{"name": "vecadd", "set": {"workload.n": 2048}}],
             "grid": {"l2.ways": [8, 16, 7]}})";  // 7 ways: not a whole number of sets
  }
  const Result sub = locsim("sweep " + spec + " -o " + out + " --slurm --array-limit 2");
  INFO(sub.err);
  REQUIRE(sub.code == 0);
  const std::string job = trim(sub.out);
  REQUIRE(!job.empty());
  CHECK_THAT(sub.err, Catch::Contains("submitted job array " + job + ": 3 runs"));
  CHECK_THAT(slurp(out + "/slurm_job.sh"), Catch::Contains("#SBATCH --array=0-2%2"));

  // Wait for the array to leave the queue (each run takes well under a second).
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    std::string q;
    shell("squeue -h -j " + job + " 2>/dev/null", q);
    if (trim(q).empty()) break;
    REQUIRE(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  const Result col = locsim("sweep collect " + spec + " -o " + out);
  INFO(col.err);
  CHECK(col.code == 3);  // the 7-way run failed
  CHECK_THAT(col.err, Catch::Contains("3 runs, 1 failed, 0 not finished"));
  const std::string db = out + "/results.sqlite";
  CHECK(count_rows(db, "exit_code = 0 AND cycles > 0") == "2");
  CHECK(count_rows(db, "exit_code = 2 AND \"l2.ways\" = '7' AND error LIKE '%l2.ways%'") == "1");
  // Every task wrote its Slurm log next to the runs.
  std::string logs;
  shell("ls " + out + "/runs/slurm_" + job + "_*.log | wc -l", logs);
  CHECK(trim(logs) == "3");
  // Resubmitting with nothing left to run submits nothing.
  const Result again = locsim("sweep " + spec + " -o " + out + " --slurm");
  CHECK(again.code == 0);
  CHECK_THAT(again.err, Catch::Contains("nothing to submit"));
  REQUIRE(std::system(("rm -rf " + out + " " + spec).c_str()) == 0);
}
