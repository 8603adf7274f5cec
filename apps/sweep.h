// `locsim sweep`: runs the runs of a sweep file (model/sweep_plan.h) as child `locsim run`
// processes, N at a time, and gathers their statistics into one CSV and one SQLite database.
#pragma once
#include <string>

namespace locsim {

struct SweepOptions {
  // local: run here, N at a time; slurm: submit a job array (one task per run); task: run the
  // array task's run (inside the job); collect: gather the results only.
  enum class Mode { Local, Slurm, Task, Collect } mode = Mode::Local;
  std::string spec;                   // the sweep file (JSON)
  std::string out;                    // results directory
  std::string self;                   // this executable, run once per point
  unsigned jobs = 1;                  // runs at a time
  bool dry_run = false;               // list the runs, run nothing
  bool progress = false;              // progress line even when stderr is not a terminal
  bool retry_failed = false;          // run again the runs that failed before
  std::string partition, time_limit;  // sbatch --partition / --time (empty: Slurm's defaults)
  unsigned array_limit = 0;           // at most this many tasks at once (0: no limit)
  unsigned task = 0;                  // Mode::Task: SLURM_ARRAY_TASK_ID
};

// Returns 0 when every run succeeded, 3 when some failed (each recorded with its exit code and
// the last line of its stderr); a bad sweep file or output directory is a ConfigError. Slurm
// mode returns once the array is submitted; `collect` gathers its results later.
int run_sweep(const SweepOptions& o);

}  // namespace locsim
