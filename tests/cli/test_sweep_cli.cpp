// `locsim sweep` end to end: child runs in parallel, a failing run recorded without stopping the
// sweep, resumption, and the CSV and SQLite results.
#include <sqlite3.h>

#include <string>

#include "cli_helpers.h"

using namespace cli_test;

namespace {
// The rows of `sql` as "a|b|c" lines.
std::string query(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  std::string out;
  auto cb = [](void* o, int n, char** v, char**) {
    auto& s = *static_cast<std::string*>(o);
    for (int i = 0; i < n; ++i) s += (i ? "|" : "") + std::string(v[i] ? v[i] : "NULL");
    s += "\n";
    return 0;
  };
  char* err = nullptr;
  const int rc = sqlite3_exec(h, sql.c_str(), cb, &out, &err);
  INFO((err ? err : ""));
  CHECK(rc == SQLITE_OK);
  sqlite3_free(err);
  sqlite3_close(h);
  return out;
}
}  // namespace

TEST_CASE("sweep cli: runs a grid in parallel, records a failure, resumes, fills CSV and SQLite",
          "[cli][sweep]") {
  const std::string spec = tmp("sweep.json"), out = tmp("sweep.out");
  REQUIRE(std::system(("rm -rf " + out).c_str()) == 0);
  {
    std::ofstream f(spec);
    // l1d.size=33 is not a whole number of sets: that run fails with exit code 2.
    f << R"({"platforms": ["fermi"],
             "workloads": [{"name": "vecadd", "set": {"workload.n": 2048}},
                           {"name": "matmul", "set": {"workload.n": 32}}],
             "grid": {"l1d.size": ["16KiB", "48KiB", 33]}})";
  }
  const Result dry = locsim("sweep " + spec + " --dry-run");
  REQUIRE(dry.code == 0);
  CHECK_THAT(dry.out, Catch::Contains("6 runs"));
  CHECK_THAT(dry.out, Catch::Contains("--set l1d.size=48KiB --set workload.n=32"));

  const Result r = locsim("sweep " + spec + " -j 2 -o " + out);
  INFO(r.err);
  CHECK(r.code == 3);  // some runs failed
  CHECK_THAT(r.err, Catch::Contains("6 runs, 6 to run, 0 already done, 2 at a time"));
  CHECK_THAT(r.err, Catch::Contains("6 runs, 2 failed"));

  const std::string db = out + "/results.sqlite";
  CHECK(query(db, "SELECT COUNT(*) FROM runs") == "6\n");
  CHECK(query(db,
              "SELECT workload, \"l1d.size\", exit_code FROM runs WHERE exit_code != 0 "
              "ORDER BY workload") == "matmul|33|2.0\nvecadd|33|2.0\n");
  CHECK_THAT(query(db, "SELECT error FROM runs WHERE exit_code != 0 LIMIT 1"),
             Catch::Contains("key 'l1d.size'"));
  // The statistics are the runs' own: vecadd n=2048 loads 2 x 2048 floats and stores 2048, 32
  // per 128-byte line: 192 L1 accesses.
  CHECK(query(db,
              "SELECT DISTINCT \"l1d.accesses\" FROM runs WHERE exit_code = 0 AND "
              "workload = 'vecadd'") == "192.0\n");
  CHECK(query(db,
              "SELECT COUNT(DISTINCT cycles) FROM runs WHERE exit_code = 0 AND "
              "workload = 'vecadd'") == "1\n");  // the L1 size does not matter to vecadd
  const std::string csv = slurp(out + "/results.csv");
  CHECK(lines(csv) == 7);
  CHECK_THAT(csv, Catch::StartsWith("id,platform,workload,l1d.size,workload.n,exit_code,error,"));

  // Resuming skips the 4 finished runs and (by default) the failed ones as well.
  const Result again = locsim("sweep " + spec + " -j 2 -o " + out);
  CHECK(again.code == 3);
  CHECK_THAT(again.err, Catch::Contains("6 runs, 0 to run, 6 already done"));
  const Result retry = locsim("sweep " + spec + " -j 2 -o " + out + " --retry-failed");
  CHECK_THAT(retry.err, Catch::Contains("6 runs, 2 to run, 4 already done"));
  CHECK(query(db, "SELECT COUNT(*) FROM runs") == "6\n");

  // A finished run written by another build (its host.locsim_commit differs) is not a result of
  // this one: resuming runs it again and says so.
  const std::string id = query(db,
                               "SELECT id FROM runs WHERE exit_code = 0 AND workload = 'vecadd' "
                               "LIMIT 1");
  REQUIRE(!id.empty());
  const std::string js = out + "/runs/" + id.substr(0, id.size() - 1) + ".json";
  const Result edit = run_shell(
      "sed -i 's/\"locsim_commit\": *\"[^\"]*\"/\"locsim_commit\": "
      "\"0123456789\"/' " +
      js + " && grep -c 0123456789 " + js);
  REQUIRE(edit.out == "1\n");
  const Result stale = locsim("sweep " + spec + " -j 2 -o " + out);
  INFO(stale.err);
  CHECK_THAT(stale.err, Catch::Contains("1 finished runs in " + out +
                                        "/runs came from another locsim build (commit 0123456789"));
  CHECK_THAT(stale.err, Catch::Contains("6 runs, 1 to run, 5 already done"));
  CHECK(slurp(js).find("0123456789") == std::string::npos);

  const Result help = locsim("sweep --help");
  CHECK(help.code == 0);
  CHECK_THAT(help.out, Catch::Contains("-j [ --jobs ] arg"));

  const Result bad = locsim("sweep " + spec + ".missing");
  CHECK(bad.code == 2);
  CHECK(lines(bad.err) == 1);
  CHECK_THAT(bad.err, Catch::Contains("cannot read sweep file"));
  REQUIRE(std::system(("rm -rf " + out + " " + spec).c_str()) == 0);
}

TEST_CASE("sweep cli: GPGPU-Sim configurations as a sweep dimension", "[cli][sweep]") {
  const std::string spec = tmp("gs.json"), out = tmp("gs.out");
  const std::string dir = std::string(LOCSIM_SOURCE_DIR) + "/tests/data/gpgpusim/";
  {
    std::ofstream f(spec);
    f << R"({"platforms": ["fermi"], "workloads": [{"name": "vecadd", "set": {"workload.n": 2048}}],
             "gpgpusim_configs": [")"
      << dir << R"(GTX480.config", ")" << dir << R"(TITANX.config"]})";
  }
  const Result r = locsim("sweep " + spec + " -j 2 -o " + out);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::string csv = slurp(out + "/results.csv");
  CHECK_THAT(csv, Catch::StartsWith("id,platform,workload,gpgpusim_config,workload.n,"));
  CHECK_THAT(csv, Catch::Contains("GTX480.config"));
  CHECK_THAT(csv, Catch::Contains("TITANX.config"));
  CHECK(lines(csv) == 3);
  REQUIRE(std::system(("rm -rf " + out + " " + spec).c_str()) == 0);
}

TEST_CASE("sweep cli: an experiment script runs its simulations as a sweep", "[cli][sweep]") {
  // scripts/mdb_experiment.py on one workload: 26 runs through 'locsim sweep', kept in
  // --sweep-dir, rows in mdb.csv. --page '' keeps the script from splicing its tables into
  // docs/validation/mdb.md (a test must not rewrite the source tree).
  const std::string out = tmp("mdb.out"), sw = tmp("mdb.sweep");
  REQUIRE(std::system(("rm -rf " + out + " " + sw).c_str()) == 0);
  const std::string cmd = "cd " + std::string(LOCSIM_SOURCE_DIR) +
                          " && /usr/bin/python3 scripts/mdb_experiment.py --workloads HST --jobs 2"
                          " --page '' --locsim " +
                          LOCSIM_BIN + " --out " + out + " --sweep-dir " + sw + " > " + out +
                          ".log 2>&1";
  INFO(slurp(out + ".log"));
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK(lines(slurp(out + "/mdb.csv")) == 27);  // header + 26 runs
  CHECK(lines(slurp(sw + "/fermi/results.csv")) == 27);
  REQUIRE(std::system(("rm -rf " + out + " " + sw + " " + out + ".log").c_str()) == 0);
}

TEST_CASE("sweep cli: a negative or garbage --task is an error, not the whole sweep",
          "[cli][sweep]") {
  const std::string spec = tmp("task.json"), out = tmp("task.out");
  {
    std::ofstream f(spec);
    f << R"({"platforms": ["fermi"], "workloads": [{"name": "vecadd", "set": {"workload.n": 1024}}]})";
  }
  for (const char* v : {"-1", "x", "4294967295"}) {
    const Result r = locsim("sweep " + spec + " -o " + out + " --task " + v);
    INFO(v << ": " << r.err);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(std::string("--task '") + v + "'"));
  }
  // A valid number gets as far as the task list (none here: no Slurm submission wrote one).
  const Result ok = locsim("sweep " + spec + " -o " + out + " --task 0");
  CHECK_THAT(ok.err, Catch::Contains("sweep task 0: no such run"));
}
