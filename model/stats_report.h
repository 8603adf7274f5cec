// Run reports built from a StatRegistry: a readable table, JSON (machine) and CSV. The JSON
// layout is documented in docs/stats.md: top-level run values, one object per statistic kind
// (sum over its instances), host speed, and the same per kernel under "kernels".
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/stats.h"
#include "model/types.h"

namespace locsim {

struct RunReport {
  std::string platform, workload;
  Cycle cycles = 0;  // core cycles of the whole run
  StatSnapshot end;  // statistics at the end of the run
  double wall_s = 0;
  double peak_rss_mb = 0;
  double cta_policy_analysis_s = 0;  // host time the CTA policy spent analysing kernels (PAVER)
  // Core clock of a timed run (0: no timing, e.g. replay). PAVER's speedup including analysis
  // (seed 003 R8.2) charges the analysis time at this clock.
  double core_hz = 0;
  struct KernelInterval {
    std::string name;
    StatSnapshot begin, end;
    Cycle cycles = 0;
  };
  std::vector<KernelInterval> kernels;
  nlohmann::json extra = nlohmann::json::object();  // copied verbatim into the JSON top level
};

// Per-kind objects ({"l1d": {"hits": N, ...}, ...}) over [from, to]; a distribution `x` becomes
// x_avg, x_min, x_max and x_count.
nlohmann::json stats_by_kind(const StatRegistry& reg, const StatSnapshot& from,
                             const StatSnapshot& to);
nlohmann::json report_json(const StatRegistry& reg, const RunReport& r, bool per_instance);
std::string report_table(const StatRegistry& reg, const RunReport& r);
// One row per value: scope,kind,stat,unit,value (scope = "run" or "kernel<i>:<name>").
std::string report_csv(const StatRegistry& reg, const RunReport& r);

// Writes (truncating) a whole file; throws ConfigError "cannot write 'PATH': reason".
void write_text_file(const std::string& path, const std::string& text);
// Peak resident set size of this process in MB (VmHWM), 0 if unknown.
double peak_rss_mb();

}  // namespace locsim
