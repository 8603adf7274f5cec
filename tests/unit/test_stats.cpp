// StatRegistry (model/stats.h) and the run reports built from it (model/stats_report.h).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include "model/params.h"
#include "model/stats.h"
#include "model/stats_report.h"
#include "model/version.h"

using namespace locsim;

namespace {

// Returns a copy: callers often pass the temporary aggregate() returns, and a pointer into it
// dangled at the end of the statement (heap-use-after-free under ASan).
std::optional<AggregateStat> find_agg(const std::vector<AggregateStat>& v, const std::string& kind,
                                      const std::string& name) {
  for (const AggregateStat& a : v)
    if (a.kind == kind && a.name == name) return a;
  return std::nullopt;
}

// A small "GPU": two SMs, one L1D, one L2, with a latency distribution per SM.
struct Fixture {
  StatRegistry reg;
  Counter& wi0 = reg.counter("gpu.sm0", "sm", "warp_insts", "instructions", "warp insts");
  Counter& wi1 = reg.counter("gpu.sm1", "sm", "warp_insts", "instructions", "warp insts");
  Counter& ti0 = reg.counter("gpu.sm0", "sm", "thread_insts", "instructions", "thread insts");
  Counter& l1_acc = reg.counter("gpu.l1d0", "l1d", "accesses", "accesses", "accesses");
  Counter& l1_hits = reg.counter("gpu.l1d0", "l1d", "hits", "accesses", "hits");
  Counter& l1_miss = reg.counter("gpu.l1d0", "l1d", "misses", "accesses", "misses");
  Counter& l1_mshr = reg.counter("gpu.l1d0", "l1d", "mshr_hits", "accesses", "mshr hits");
  Counter& l2_hits = reg.counter("gpu.l2_0", "l2", "hits", "accesses", "hits");
  Counter& l2_miss = reg.counter("gpu.l2_0", "l2", "misses", "accesses", "misses");
  Distribution& lat0 = reg.distribution("gpu.sm0", "sm", "load_latency", "ps", "latency");
  Distribution& lat1 = reg.distribution("gpu.sm1", "sm", "load_latency", "ps", "latency");
};

}  // namespace

TEST_CASE("Stats: counters and distributions keep their values", "[stats]") {
  StatRegistry reg;
  Counter& c = reg.counter("a", "k", "n", "u", "d");
  CHECK(c.value() == 0);
  ++c;
  c += 41;
  CHECK(c.value() == 42);
  c.set(7);
  CHECK(c.value() == 7);

  Distribution& d = reg.distribution("a", "k", "lat", "cycles", "latency");
  CHECK(d.count() == 0);
  CHECK(d.min() == 0);  // empty: 0, not the sentinel
  CHECK(d.max() == 0);
  CHECK(d.mean() == 0.0);
  for (std::uint64_t v : {10u, 4u, 30u, 8u}) d.sample(v);
  CHECK(d.count() == 4);
  CHECK(d.sum() == 52);
  CHECK(d.min() == 4);
  CHECK(d.max() == 30);
  CHECK(d.mean() == Approx(13.0));

  // References stay valid while many more stats are registered (deque storage).
  for (int i = 0; i < 1000; ++i) reg.counter("p" + std::to_string(i), "k", "n", "u", "d");
  ++c;
  CHECK(c.value() == 8);
  CHECK(reg.counter_infos().size() == 1001);
  CHECK(reg.distribution_infos().size() == 1);
  CHECK(reg.counter_infos()[0].path == "a");
  CHECK(reg.counter_infos()[0].kind == "k");
  CHECK(reg.counter_infos()[0].name == "n");
  CHECK(reg.counter_infos()[0].unit == "u");
  CHECK(reg.counter_infos()[0].desc == "d");
  CHECK(reg.distribution_infos()[0].unit == "cycles");
}

TEST_CASE("Stats: registering the same (path, name) twice throws std::logic_error", "[stats]") {
  StatRegistry reg;
  reg.counter("gpu.sm0", "sm", "warp_insts", "instructions", "");
  CHECK_THROWS_AS(reg.counter("gpu.sm0", "sm", "warp_insts", "instructions", ""), std::logic_error);
  // The kind does not make it a different statistic, nor does the stat type.
  CHECK_THROWS_AS(reg.counter("gpu.sm0", "other", "warp_insts", "x", ""), std::logic_error);
  CHECK_THROWS_AS(reg.distribution("gpu.sm0", "sm", "warp_insts", "x", ""), std::logic_error);
  try {
    reg.counter("gpu.sm0", "sm", "warp_insts", "instructions", "");
    FAIL("no exception");
  } catch (const std::logic_error& e) {
    CHECK(std::string(e.what()).find("gpu.sm0.warp_insts") != std::string::npos);
  }
  // Same name on another instance, or another name on the same instance, is fine.
  CHECK_NOTHROW(reg.counter("gpu.sm1", "sm", "warp_insts", "instructions", ""));
  CHECK_NOTHROW(reg.counter("gpu.sm0", "sm", "thread_insts", "instructions", ""));
  reg.distribution("gpu.sm0", "sm", "lat", "ps", "");
  CHECK_THROWS_AS(reg.distribution("gpu.sm0", "sm", "lat", "ps", ""), std::logic_error);
  CHECK_THROWS_AS(reg.counter("gpu.sm0", "sm", "lat", "ps", ""), std::logic_error);
  CHECK(reg.counter_infos().size() == 3);  // failed registrations add nothing
  CHECK(reg.distribution_infos().size() == 1);
}

TEST_CASE("Stats: aggregate sums counters over the instances of a kind, in registration order",
          "[stats]") {
  Fixture f;
  f.wi0 += 30;
  f.wi1 += 10;
  f.ti0 += 960;
  f.l1_hits += 3;
  f.lat0.sample(100);
  f.lat0.sample(300);
  f.lat1.sample(50);
  f.lat1.sample(150);
  f.lat1.sample(1000);
  const std::vector<AggregateStat> a = f.reg.aggregate(StatSnapshot(), f.reg.snapshot());
  // One row per (kind, name): 2 sm counters, 4 l1d, 2 l2, then the sm distribution.
  REQUIRE(a.size() == 9);
  CHECK(a[0].kind == "sm");
  CHECK(a[0].name == "warp_insts");
  CHECK(a[0].value == 40);
  CHECK(a[0].unit == "instructions");
  CHECK_FALSE(a[0].is_distribution);
  CHECK(a[1].name == "thread_insts");
  CHECK(a[1].value == 960);
  CHECK(a[2].kind == "l1d");
  CHECK(a[2].name == "accesses");
  CHECK(a[3].name == "hits");
  CHECK(a[3].value == 3);
  CHECK(a[8].kind == "sm");
  CHECK(a[8].name == "load_latency");
  REQUIRE(a[8].is_distribution);
  CHECK(a[8].count == 5);
  CHECK(a[8].sum == 1600);
  CHECK(a[8].min == 50);
  CHECK(a[8].max == 1000);
  CHECK(a[8].mean() == Approx(320.0));

  CHECK(f.reg.total("sm", "warp_insts") == 40);
  CHECK(f.reg.total("sm", "thread_insts") == 960);
  CHECK(f.reg.total("l1d", "misses") == 0);
  CHECK(f.reg.total("l1d", "nope") == 0);
  CHECK(f.reg.total("nope", "hits") == 0);
  CHECK(f.reg.total("sm", "load_latency") == 0);  // total() is for counters only
}

TEST_CASE("Stats: a per-kernel interval is the difference of two snapshots", "[stats]") {
  Fixture f;
  f.wi0 += 5;
  f.wi1 += 2;
  f.lat0.sample(10);
  const StatSnapshot s0 = f.reg.snapshot();
  REQUIRE(s0.counters.size() == 9);
  REQUIRE(s0.dists.size() == 2);
  f.reg.begin_period();
  f.wi0 += 100;
  f.wi1 += 1;
  f.lat0.sample(70);
  f.lat0.sample(30);
  // A stat registered after the first snapshot counts from zero in the interval.
  Counter& late = f.reg.counter("gpu.sm2", "sm", "warp_insts", "instructions", "");
  late += 1000;
  Distribution& late_d = f.reg.distribution("gpu.sm2", "sm", "load_latency", "ps", "");
  late_d.sample(5);
  const StatSnapshot s1 = f.reg.snapshot();
  REQUIRE(s1.counters.size() == 10);

  const std::vector<AggregateStat> k = f.reg.aggregate(s0, s1);
  const std::optional<AggregateStat> wi = find_agg(k, "sm", "warp_insts");
  REQUIRE(wi);
  CHECK(wi->value == 100 + 1 + 1000);
  const std::optional<AggregateStat> lat = find_agg(k, "sm", "load_latency");
  REQUIRE(lat);
  CHECK(lat->count == 3);  // 70, 30 (sm0) and 5 (sm2); the 10 before s0 is outside
  CHECK(lat->sum == 105);
  CHECK(lat->min == 5);
  CHECK(lat->max == 70);
  // The whole run from an empty snapshot.
  const std::optional<AggregateStat> all =
      find_agg(f.reg.aggregate(StatSnapshot(), s1), "sm", "warp_insts");
  REQUIRE(all);
  CHECK(all->value == 1108);
  // The empty interval.
  const std::optional<AggregateStat> none = find_agg(f.reg.aggregate(s1, s1), "sm", "warp_insts");
  REQUIRE(none);
  CHECK(none->value == 0);
  const std::optional<AggregateStat> none_d =
      find_agg(f.reg.aggregate(s1, s1), "sm", "load_latency");
  REQUIRE(none_d);
  CHECK(none_d->count == 0);
  CHECK(none_d->min == 0);
  CHECK(none_d->max == 0);
  // Stats registered after `to` are left out of an older interval.
  const std::vector<AggregateStat> old = f.reg.aggregate(StatSnapshot(), s0);
  CHECK(find_agg(old, "sm", "warp_insts")->value == 7);
  CHECK(find_agg(old, "sm", "load_latency")->count == 1);
}

TEST_CASE("Stats: begin_period restarts distribution min/max but not count/sum", "[stats]") {
  StatRegistry reg;
  Distribution& d = reg.distribution("gpu.dram0", "dram", "latency", "cycles", "");
  d.sample(100);
  d.sample(2);
  const StatSnapshot k1_end = reg.snapshot();
  reg.begin_period();
  d.sample(40);
  d.sample(60);
  const StatSnapshot k2_end = reg.snapshot();
  CHECK(d.count() == 4);
  CHECK(d.sum() == 202);

  const std::optional<AggregateStat> k1 =
      find_agg(reg.aggregate(StatSnapshot(), k1_end), "dram", "latency");
  REQUIRE(k1);
  CHECK(k1->count == 2);
  CHECK(k1->min == 2);
  CHECK(k1->max == 100);
  const std::optional<AggregateStat> k2 =
      find_agg(reg.aggregate(k1_end, k2_end), "dram", "latency");
  REQUIRE(k2);
  CHECK(k2->count == 2);
  CHECK(k2->sum == 100);
  CHECK(k2->min == 40);  // not 2: the extremes restarted with the period
  CHECK(k2->max == 60);  // not 100
}

TEST_CASE("Stats: per_instance lists each instance's values over the interval", "[stats]") {
  Fixture f;
  f.wi0 += 3;
  const StatSnapshot s0 = f.reg.snapshot();
  f.wi0 += 4;
  f.wi1 += 9;
  f.lat1.sample(12);
  const auto rows = f.reg.per_instance(s0, f.reg.snapshot());
  REQUIRE(rows.size() == 11);  // 9 counters then 2 distributions
  CHECK(rows[0].first.path == "gpu.sm0");
  CHECK(rows[0].first.name == "warp_insts");
  CHECK(rows[0].second.value == 4);
  CHECK(rows[1].first.path == "gpu.sm1");
  CHECK(rows[1].second.value == 9);
  CHECK(rows[1].second.kind == "sm");
  CHECK(rows[9].first.path == "gpu.sm0");
  CHECK(rows[9].second.is_distribution);
  CHECK(rows[9].second.count == 0);
  CHECK(rows[10].first.path == "gpu.sm1");
  CHECK(rows[10].second.name == "load_latency");
  CHECK(rows[10].second.unit == "ps");
  CHECK(rows[10].second.count == 1);
  CHECK(rows[10].second.min == 12);
  CHECK(rows[10].second.max == 12);
}

TEST_CASE("Stats report: stats_by_kind layout and derived miss rates", "[stats][report]") {
  Fixture f;
  f.l1_hits += 6;
  f.l1_miss += 3;
  f.l1_mshr += 1;
  f.l2_hits += 1;
  f.l2_miss += 3;
  f.lat0.sample(100);
  f.lat1.sample(400);
  f.reg.counter("gpu.noc", "noc", "requests", "packets", "") += 5;
  const nlohmann::json j = stats_by_kind(f.reg, StatSnapshot(), f.reg.snapshot());
  REQUIRE(j.is_object());
  CHECK(j.size() == 4);  // sm, l1d, l2, noc
  CHECK(j["sm"]["warp_insts"] == 0);
  CHECK(j["sm"]["load_latency_avg"].get<double>() == Approx(250.0));
  CHECK(j["sm"]["load_latency_min"] == 100);
  CHECK(j["sm"]["load_latency_max"] == 400);
  CHECK(j["sm"]["load_latency_count"] == 2);
  CHECK_FALSE(j["sm"].contains("load_latency"));
  CHECK_FALSE(j["sm"].contains("miss_rate"));
  CHECK_FALSE(j["noc"].contains("miss_rate"));
  CHECK(j["noc"]["requests"] == 5);
  // miss_rate = misses / (hits + misses + mshr_hits): 3 / 10 and 3 / 4.
  CHECK(j["l1d"]["miss_rate"].get<double>() == Approx(0.3));
  CHECK(j["l2"]["miss_rate"].get<double>() == Approx(0.75));
  CHECK(j["l1d"]["hits"] == 6);
  CHECK(j["l1d"]["mshr_hits"] == 1);

  // An interval without accesses has a miss rate of 0, not NaN.
  const StatSnapshot s = f.reg.snapshot();
  const nlohmann::json e = stats_by_kind(f.reg, s, s);
  CHECK(e["l1d"]["miss_rate"].get<double>() == 0.0);
  CHECK(e["sm"]["load_latency_count"] == 0);
  CHECK(e["sm"]["load_latency_min"] == 0);
  CHECK(e["sm"]["load_latency_avg"].get<double>() == 0.0);
}

TEST_CASE("Stats report: report_json top level, host speed and per-kernel values",
          "[stats][report]") {
  Fixture f;
  RunReport r;
  r.platform = "fermi";
  r.workload = "vecadd";
  // Kernel 0: 30 warp insts, 8 L1 accesses (6 hits, 2 misses) in 10 cycles.
  RunReport::KernelInterval k0;
  k0.name = "k0";
  k0.begin = f.reg.snapshot();
  f.wi0 += 20;
  f.wi1 += 10;
  f.ti0 += 640;
  f.l1_acc += 8;
  f.l1_hits += 6;
  f.l1_miss += 2;
  f.lat0.sample(7);
  k0.end = f.reg.snapshot();
  k0.cycles = 10;
  // Kernel 1: 50 warp insts, 2 L1 accesses (both misses) in 25 cycles.
  f.reg.begin_period();
  RunReport::KernelInterval k1;
  k1.name = "k1";
  k1.begin = f.reg.snapshot();
  f.wi1 += 50;
  f.ti0 += 32;
  f.l1_acc += 2;
  f.l1_miss += 2;
  f.lat1.sample(9);
  k1.end = f.reg.snapshot();
  k1.cycles = 25;
  r.kernels = {k0, k1};
  r.cycles = 40;
  r.end = f.reg.snapshot();
  r.wall_s = 2.0;
  r.peak_rss_mb = 12.5;
  r.extra["ok"] = true;
  r.extra["check_data"] = false;

  const nlohmann::json j = report_json(f.reg, r, false);
  for (const char* key : {"platform", "workload", "cycles", "warp_insts", "thread_insts", "ipc",
                          "host", "kernels", "sm", "l1d", "l2", "ok", "check_data"})
    CHECK(j.contains(key));
  CHECK_FALSE(j.contains("instances"));
  CHECK(j["platform"] == "fermi");
  CHECK(j["workload"] == "vecadd");
  CHECK(j["cycles"] == 40);
  CHECK(j["warp_insts"] == 80);
  CHECK(j["thread_insts"] == 672);
  CHECK(j["ipc"].get<double>() == Approx(2.0));  // 80 / 40
  CHECK(j["ok"] == true);
  CHECK(j["l1d"]["accesses"] == 10);
  CHECK(j["l1d"]["miss_rate"].get<double>() == Approx(0.4));  // 4 / (6 + 4 + 0)
  // Host speed: 80 warp insts, 10 L1 accesses and 40 cycles in 2 s.
  const nlohmann::json& h = j["host"];
  CHECK(h.size() == 7);
  CHECK(h["locsim_commit"] == std::string(locsim_commit()));  // the binary's source commit
  CHECK(h["cta_policy_analysis_s"].get<double>() == 0);  // no analysing CTA policy, no core clock
  CHECK(h["wall_s"].get<double>() == 2.0);
  CHECK(h["warp_insts_per_s"].get<double>() == Approx(40.0));
  CHECK(h["mem_transactions_per_s"].get<double>() == Approx(5.0));
  CHECK(h["sim_cycles_per_s"].get<double>() == Approx(20.0));
  CHECK(h["peak_rss_mb"].get<double>() == 12.5);

  REQUIRE(j["kernels"].is_array());
  REQUIRE(j["kernels"].size() == 2);
  const nlohmann::json& j0 = j["kernels"][0];
  CHECK(j0["name"] == "k0");
  CHECK(j0["cycles"] == 10);
  CHECK(j0["warp_insts"] == 30);
  CHECK(j0["thread_insts"] == 640);
  CHECK(j0["ipc"].get<double>() == Approx(3.0));
  CHECK(j0["l1d"]["accesses"] == 8);
  CHECK(j0["l1d"]["miss_rate"].get<double>() == Approx(0.25));  // 2 / 8
  CHECK(j0["sm"]["load_latency_count"] == 1);
  CHECK(j0["sm"]["load_latency_max"] == 7);
  const nlohmann::json& j1 = j["kernels"][1];
  CHECK(j1["name"] == "k1");
  CHECK(j1["cycles"] == 25);
  CHECK(j1["warp_insts"] == 50);
  CHECK(j1["thread_insts"] == 32);
  CHECK(j1["ipc"].get<double>() == Approx(2.0));
  CHECK(j1["l1d"]["miss_rate"].get<double>() == Approx(1.0));
  CHECK(j1["sm"]["load_latency_min"] == 9);
  CHECK(j1["sm"]["load_latency_max"] == 9);

  // Zero wall time: speeds are 0, not inf.
  r.wall_s = 0;
  const nlohmann::json z = report_json(f.reg, r, false);
  CHECK(z["host"]["warp_insts_per_s"].get<double>() == 0.0);
  CHECK(z["host"]["sim_cycles_per_s"].get<double>() == 0.0);

  // --per-instance adds each instance's values keyed by path.
  const nlohmann::json pi = report_json(f.reg, r, true);
  REQUIRE(pi.contains("instances"));
  CHECK(pi["instances"]["gpu.sm0"]["warp_insts"] == 20);
  CHECK(pi["instances"]["gpu.sm1"]["warp_insts"] == 60);
  CHECK(pi["instances"]["gpu.l1d0"]["misses"] == 4);
  CHECK(pi["instances"]["gpu.sm1"]["load_latency_count"] == 1);
}

TEST_CASE("Stats report: report_csv header and rows", "[stats][report]") {
  StatRegistry reg;
  Counter& wi = reg.counter("gpu.sm0", "sm", "warp_insts", "instructions", "");
  Counter& hits = reg.counter("gpu.l1d0", "l1d", "hits", "accesses", "");
  Distribution& lat = reg.distribution("gpu.sm0", "sm", "load_latency", "ps", "");
  RunReport r;
  r.kernels.emplace_back();
  r.kernels[0].name = "k,\"1\"";  // CSV-hostile characters become '_'
  r.kernels[0].begin = reg.snapshot();
  wi += 40;
  hits += 3;
  lat.sample(100);
  lat.sample(301);
  r.kernels[0].end = reg.snapshot();
  r.kernels[0].cycles = 16;
  r.cycles = 20;
  r.end = reg.snapshot();
  const std::string expected =
      "scope,kind,stat,unit,value\n"
      "run,run,cycles,core cycles,20\n"
      "run,run,warp_insts,instructions,40\n"
      "run,run,thread_insts,instructions,0\n"
      "run,run,ipc,instructions/cycle,2\n"
      "run,sm,warp_insts,instructions,40\n"
      "run,l1d,hits,accesses,3\n"
      "run,sm,load_latency_avg,ps,200.5\n"
      "run,sm,load_latency_max,ps,301\n"
      "run,sm,load_latency_count,samples,2\n"
      "kernel0:k__1_,run,cycles,core cycles,16\n"
      "kernel0:k__1_,run,warp_insts,instructions,40\n"
      "kernel0:k__1_,run,thread_insts,instructions,0\n"
      "kernel0:k__1_,run,ipc,instructions/cycle,2.5\n"
      "kernel0:k__1_,sm,warp_insts,instructions,40\n"
      "kernel0:k__1_,l1d,hits,accesses,3\n"
      "kernel0:k__1_,sm,load_latency_avg,ps,200.5\n"
      "kernel0:k__1_,sm,load_latency_max,ps,301\n"
      "kernel0:k__1_,sm,load_latency_count,samples,2\n";
  CHECK(report_csv(reg, r) == expected);
}

TEST_CASE("Stats report: write_text_file writes, truncates, and names an unwritable path",
          "[stats][report]") {
  char tmpl[] = "/tmp/locsim_stats_XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  const std::string path = dir + "/out.txt";
  write_text_file(path, "a long first content\n");
  write_text_file(path, "short\n");
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  CHECK(ss.str() == "short\n");

  const std::string bad = dir + "/no/such/dir/out.json";
  CHECK_THROWS_AS(write_text_file(bad, "x"), ConfigError);
  try {
    write_text_file(bad, "x");
    FAIL("no exception");
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("cannot write '" + bad + "'") == 0);
    CHECK(msg.find("No such file or directory") != std::string::npos);
  }
  std::remove(path.c_str());
  rmdir(dir.c_str());
}

TEST_CASE("Stats report: peak_rss_mb reads this process's VmHWM", "[stats][report]") {
  const double mb = peak_rss_mb();
  CHECK(mb > 0.0);
  CHECK(mb < 65536.0);  // a unit slip (kB or bytes reported as MB) would exceed this
}

// Bug: the run-level aggregate over [start, end] reports the extremes of the LAST period only,
// because begin_period() resets Distribution::min_/max_ and snapshots only carry the current
// extremes; when the last period had no sample, Distribution::min() returns the reset sentinel
// (UINT64_MAX) since count_ is cumulative. The platform calls begin_period() at every kernel
// start, so the run's JSON x_min/x_max are wrong whenever a workload has several kernels.
TEST_CASE("Stats: run-level distribution min/max cover every period", "[stats]") {
  StatRegistry reg;
  Distribution& d = reg.distribution("gpu.dram0", "dram", "latency", "cycles", "");
  d.sample(5);
  d.sample(100);
  reg.begin_period();  // kernel 2 starts
  d.sample(50);
  const std::optional<AggregateStat> run =
      find_agg(reg.aggregate(StatSnapshot(), reg.snapshot()), "dram", "latency");
  REQUIRE(run);
  CHECK(run->count == 3);
  CHECK(run->min == 5);    // got 50: kernel 2's minimum
  CHECK(run->max == 100);  // got 50: kernel 2's maximum

  reg.begin_period();  // kernel 3 starts and samples nothing
  const nlohmann::json j = stats_by_kind(reg, StatSnapshot(), reg.snapshot());
  CHECK(j["dram"]["latency_count"] == 3);
  CHECK(j["dram"]["latency_min"] == 5);    // got 18446744073709551615
  CHECK(j["dram"]["latency_max"] == 100);  // got 0
}

TEST_CASE("Stats: a distribution's period and run extremes, empty periods and extreme values",
          "[stats]") {
  StatRegistry reg;
  Distribution& d = reg.distribution("gpu.dram0", "dram", "latency", "cycles", "");
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  d.sample(7);
  d.sample(3);
  d.sample(9);
  CHECK(d.min() == 3);
  CHECK(d.max() == 9);
  d.reset_extremes();  // an empty period: 0 for both, the run's extremes kept
  CHECK(d.min() == 0);
  CHECK(d.max() == 0);
  CHECK(d.all_min() == 3);
  CHECK(d.all_max() == 9);
  d.sample(5);  // a period extreme that is not a run extreme
  CHECK(d.min() == 5);
  CHECK(d.max() == 5);
  CHECK(d.all_min() == 3);
  CHECK(d.all_max() == 9);
  d.sample(1);  // a new run minimum, then a new run maximum
  d.sample(12);
  CHECK(d.min() == 1);
  CHECK(d.max() == 12);
  CHECK(d.all_min() == 1);
  CHECK(d.all_max() == 12);
  d.reset_extremes();  // a period whose samples are the extreme values
  d.sample(0);
  CHECK(d.min() == 0);
  CHECK(d.max() == 0);
  d.reset_extremes();
  d.sample(kMax);
  CHECK(d.min() == kMax);
  CHECK(d.max() == kMax);
  CHECK(d.all_min() == 0);
  CHECK(d.all_max() == kMax);
  CHECK(d.count() == 8);
}
