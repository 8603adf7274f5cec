// The GPU top level: SMs -> L1Ds -> crossbar -> L2 sub-partitions -> memory controllers, a CTA
// dispatcher and a watchdog, composed from a GpuConfig. Optionally inserts a base-protocol checker
// on every TLM link. One GpuPlatform per process (one elaboration per process).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "model/functional_memory.h"
#include "model/stats.h"
#include "platforms/gpu_params.h"
#include "tlm_components/protocol_checker.h"

namespace locsim {

struct KernelStats {
  std::string name;
  Cycle start = 0, end = 0;
  StatSnapshot begin, finish;
};

struct RunOutcome {
  bool ok = false;
  bool truncated = false;  // stopped by sim.max_cycles
  std::vector<std::string> failures;
  Cycle cycles = 0;
  StatSnapshot end;
  std::vector<KernelStats> kernels;
  std::uint64_t verified_words = 0;  // words checked at kernel ends (data-integrity mode)
};

class GpuPlatform : public sc_core::sc_module {
 public:
  GpuPlatform(sc_core::sc_module_name name, const GpuConfig& cfg);
  ~GpuPlatform() override;

  const GpuConfig& config() const { return cfg_; }
  SimContext& context() { return ctx_; }
  // Queues a workload (kept alive by the caller until simulate() returns).
  void load(const Workload& w);
  // Runs to completion (or failure / sim.max_cycles) and performs the end-of-run checks.
  RunOutcome simulate();
  // Optional progress callback, called every `period` core cycles of simulated time.
  void set_progress(std::function<void(const GpuPlatform&)> cb, std::uint64_t period_cycles);

  std::uint32_t ctas_total() const;
  std::uint32_t ctas_completed() const;
  Cycle now_cycles() const;
  std::size_t module_count() const;
  std::size_t socket_count() const;
  std::string describe_in_flight(std::size_t max_lines = 20) const;

  StreamingMultiprocessor& sm(std::size_t i) { return *sms_[i]; }
  L1DataCache& l1(std::size_t i) { return *l1s_[i]; }
  std::size_t num_l2() const { return l2s_.size(); }
  L2CacheBank& l2(std::size_t i) { return *l2s_[i]; }
  CtaDispatcher& dispatcher() { return *dispatcher_; }
  std::size_t num_icc() const { return iccs_.size(); }
  IntraClusterCoalescer& icc(std::size_t i) { return *iccs_[i]; }
  const Crossbar& noc() const { return *xbar_; }
  // The one address map every block that routes by address shares.
  const AddressMap& address_map() const { return address_map_; }
  // Seed 004 bypassing parameter generators: one per SM (MDB-local), one for SM 0 (MDB-global).
  std::size_t num_bypass_generators() const { return bpgs_.size(); }
  const BypassPredictor& bypass_generator(std::size_t i) const { return *bpgs_[i]; }

 private:
  template <class Init, class Targ>
  void link(Init& initiator, Targ& target, const std::string& what);
  void kernel_begin(std::uint32_t seq, const Kernel& k);
  void kernel_end(std::uint32_t seq, const Kernel& k);
  void progress_method();

  GpuConfig cfg_;
  AddressMap address_map_;  // before the blocks that hold references to it
  SimContext ctx_;
  std::unique_ptr<FunctionalMemory> backing_;
  std::vector<std::unique_ptr<StreamingMultiprocessor>> sms_;
  std::vector<std::unique_ptr<L1DataCache>> l1s_;
  std::vector<std::unique_ptr<IntraClusterCoalescer>> iccs_;  // one per cluster, if enabled
  std::unique_ptr<Crossbar> xbar_;
  std::vector<std::unique_ptr<BypassPredictor>> bpgs_;
  std::vector<Counter*> mdb_choices_;  // decisions that chose k = 1..K (all generators)
  void wire_bypass_generators();
  void apply_bypass_decision(std::size_t generator);
  std::vector<std::unique_ptr<L2CacheBank>> l2s_;
  std::vector<std::unique_ptr<MemoryController>> mcs_;
  std::unique_ptr<CtaDispatcher> dispatcher_;
  std::unique_ptr<Watchdog> watchdog_;
  std::vector<std::unique_ptr<ProtocolChecker>> checkers_;
  std::vector<KernelStats> kernel_stats_;
  std::uint64_t verified_words_ = 0;
  std::function<void(const GpuPlatform&)> progress_cb_;
  std::uint64_t progress_period_ = 0;
  sc_core::sc_event progress_ev_;
};

}  // namespace locsim
