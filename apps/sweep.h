// `locsim sweep`: runs the runs of a sweep file (model/sweep_plan.h) as child `locsim run`
// processes, N at a time, and gathers their statistics into one CSV and one SQLite database.
#pragma once
#include <string>

namespace locsim {

struct SweepOptions {
  std::string spec;           // the sweep file (JSON)
  std::string out;            // results directory
  std::string self;           // this executable, run once per point
  unsigned jobs = 1;          // runs at a time
  bool dry_run = false;       // list the runs, run nothing
  bool progress = false;      // progress line even when stderr is not a terminal
  bool retry_failed = false;  // run again the runs that failed before
};

// Returns 0 when every run succeeded, 3 when some failed (each recorded with its exit code and
// the last line of its stderr); a bad sweep file or output directory is a ConfigError.
int run_sweep(const SweepOptions& o);

}  // namespace locsim
