// The CTA dispatcher (GigaThread engine): launches the kernels of a workload one after the other,
// hands CTAs to SMs as they have room according to a CtaSchedulingPolicy from model/, and reports
// kernel boundaries to the platform (statistics snapshots, L1 invalidation, integrity checks).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "model/cta_policy.h"
#include "model/workload/kernel.h"
#include "tlm_components/activation_scheduler.h"
#include "tlm_components/clock_domain.h"
#include "tlm_components/sim_context.h"

namespace locsim {

struct DispatcherConfig {
  std::string policy = "rr";
  CtaPolicyArgs policy_args;         // the policy's own parameters (dispatcher.<policy>.<name>)
  std::uint32_t launch_latency = 1;  // core cycles from a free slot to the next CTA launch
  std::uint32_t kernel_gap = 0;      // core cycles between a kernel's end and the next launch
  double clock_hz = 1.4e9;
  GpuTopology topology;
  SmResources resources;
};

class CtaDispatcher : public sc_core::sc_module, public CtaCompletionIf {
 public:
  sc_core::sc_port<CtaLaunchIf, 0> sms;  // one binding per SM, in SM order
  sc_core::sc_export<CtaCompletionIf> completion;

  struct KernelRecord {
    std::string name;
    std::uint32_t ctas = 0;
    std::uint32_t max_ctas_per_sm = 0;
    std::string occupancy_limiter;
    Cycle start = 0, end = 0;
  };
  // Platform hooks at kernel start (before the first CTA) and end (after the last CTA).
  std::function<void(std::uint32_t seq, const Kernel&)> on_kernel_begin;
  std::function<void(std::uint32_t seq, const Kernel&)> on_kernel_end;
  // Hooks at each CTA launch (before the SM sees it) and retirement.
  std::function<void(std::uint32_t sm, std::uint32_t cta)> on_cta_launch, on_cta_done;

  CtaDispatcher(sc_core::sc_module_name name, const DispatcherConfig& cfg, SimContext& ctx);

  // Queues the workload's kernels; simulation starts them at time 0. Throws ConfigError if a
  // kernel's CTA cannot fit on an SM.
  void load(const Workload& w);
  // Host-driven use (a device in a virtual platform): with nothing loaded the dispatcher waits
  // instead of stopping the simulation, and launch() starts workloads while it runs.
  void set_host_driven(bool on) { host_driven_ = on; }
  // Queues the workload's kernels at the current time; if the dispatcher is idle the first one
  // begins after the launch latency, otherwise after the kernels already queued.
  void launch(const Workload& w);
  // Called when the last queued kernel has ended (the dispatcher is idle again).
  std::function<void()> on_idle;
  void cta_done(std::uint32_t sm, std::uint32_t cta) override;

  bool finished() const { return finished_; }
  std::uint32_t ctas_total() const { return total_ctas_; }
  std::uint32_t ctas_completed() const { return completed_ctas_; }
  const std::vector<KernelRecord>& kernels() const { return records_; }
  const ClockDomain& clock() const { return clk_; }
  const CtaSchedulingPolicy& policy() const { return *policy_; }

 private:
  void start_method();
  void issue_method();
  void begin_kernel(std::uint32_t k);

  DispatcherConfig cfg_;
  SimContext& ctx_;
  ClockDomain clk_;
  std::unique_ptr<CtaSchedulingPolicy> policy_;
  std::unique_ptr<LazyCtaAccessSets> access_sets_;  // of the current kernel, for the policy
  std::vector<const Kernel*> kernels_;
  std::vector<KernelRecord> records_;
  std::uint32_t current_ = 0;
  std::uint32_t done_in_kernel_ = 0;
  std::uint32_t max_per_sm_ = 0;
  std::uint32_t total_ctas_ = 0, completed_ctas_ = 0;
  bool finished_ = false;
  std::vector<SmView> views_;
  std::vector<CtaAssignment> picks_;
  Activation start_ev_{Activation::Stage::kDispatch}, issue_ev_{Activation::Stage::kDispatch};
  std::uint32_t next_kernel_ = 0;  // kernel start_method begins
  bool host_driven_ = false;
  Counter& launched_;
};

// Stops a run that makes no progress and names the transactions in flight and where they sit.
// A run driven by GpuPlatform::simulate() calls check() between slices of sc_start, so the
// watchdog puts no event of its own in the kernel's queue: a periodic timed event reorders
// same-time events and so changed the results with the check interval. A host that runs the
// kernel itself (a virtual platform) starts the self-timed checks instead (self_timed()).
class Watchdog : public sc_core::sc_module {
 public:
  Watchdog(sc_core::sc_module_name name, SimContext& ctx, const ClockDomain& clk,
           std::uint64_t interval_cycles, std::uint64_t limit_cycles,
           std::function<bool()> finished, std::function<std::string()> describe);
  // Called at every check (every `interval` cycles) while the run is going: observers such as
  // the progress line and the interval sampler ride on it, and so cannot change the results
  // either.
  std::function<void(Cycle now)> on_tick;
  std::uint64_t interval() const { return interval_; }
  // One check at cycle `now`: false when the run is finished or has failed (nothing to watch).
  bool check(Cycle now);
  // Checks every `interval` cycles from now on, as a process of the simulation.
  void self_timed() {
    self_timed_ = true;
    rearm_ev_.notify(sc_core::SC_ZERO_TIME);
  }
  // Watches again after the run went idle (a host launched more work).
  void rearm() {
    stalled_ = 0;
    last_progress_ = ~std::uint64_t{0};
    if (self_timed_) rearm_ev_.notify(sc_core::SC_ZERO_TIME);
  }

 private:
  void check_method();
  sc_core::sc_event rearm_ev_;
  SimContext& ctx_;
  ClockDomain clk_;
  std::uint64_t interval_, limit_;
  std::function<bool()> finished_;
  std::function<std::string()> describe_;
  std::uint64_t last_progress_ = ~std::uint64_t{0};
  std::uint64_t stalled_ = 0;
  bool self_timed_ = false;
};

// Parameters (dispatcher.*), declared from DispatcherConfig's defaults
// (cta_dispatcher_params.cpp).
class ParamRegistry;
void declare_dispatcher_params(ParamRegistry& p);
DispatcherConfig dispatcher_config_from_params(const ParamRegistry& p);

}  // namespace locsim
