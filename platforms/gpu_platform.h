// The GPU top level: builds its blocks with the topology builder named by gpu.topology
// (platforms/topologies/), plugs in the mechanisms the configuration turned on
// (platforms/mechanisms/), runs workloads and performs the end-of-run checks (conservation,
// protocol checkers, data integrity). One GpuPlatform per process (one elaboration per process).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>
#include <vector>

#include "model/functional_memory.h"
#include "model/interval_sampler.h"
#include "model/stats.h"
#include "platforms/gpu_params.h"
#include "platforms/mechanism.h"
#include "platforms/platform_build.h"
#include "tlm_components/activation_scheduler.h"
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
  // Host-driven use (GpuDevice): the platform idles instead of stopping when no work is
  // queued, and launch() starts a workload while the simulation runs (kept alive by the caller
  // until it has finished). on_idle runs when the last queued kernel has ended.
  void set_host_driven(std::function<void()> on_idle);
  void launch(const Workload& w);
  // Functional access to device memory through the memory hierarchy (coherent with the L2s and
  // DRAM), split at line boundaries; returns the bytes done. A write also becomes the golden
  // value data-integrity checks compare later loads with.
  std::size_t debug_access(Addr a, std::uint8_t* data, std::size_t n, bool write);
  // True when no transaction is in flight anywhere (every request has had its response).
  bool memory_quiet() const;
  // True when some L2 bank holds a valid sector of a line in [a, a + bytes).
  bool l2_holds(Addr a, std::uint64_t bytes) const;
  // The functional DRAM contents (data-integrity mode), nullptr otherwise.
  FunctionalMemory* backing() { return backing_.get(); }
  // End-of-run checks of a host-driven run: failures so far plus, when the platform is idle,
  // conservation (no payload in flight) and the protocol checkers' open transactions.
  std::vector<std::string> check_quiescent() const;
  // Optional progress callback, called every `period` core cycles (rounded down to a multiple of
  // watchdog.interval, at least one) at the watchdog's checks. It adds no event of its own, so
  // observing a run does not change it. False (and no callback) when the watchdog is off.
  bool set_progress(std::function<void(const GpuPlatform&)> cb, std::uint64_t period_cycles);
  // Transactions in flight by the kind of block holding them (interval samples).
  IntervalSampler::Occupancy held_by_block() const;
  // The watchdog's check interval in core cycles (0: watchdog off).
  std::uint64_t tick_interval() const;

  std::uint32_t ctas_total() const;
  std::uint32_t ctas_completed() const;
  Cycle now_cycles() const;
  std::size_t module_count() const;
  std::size_t socket_count() const;
  std::string describe_in_flight(std::size_t max_lines = 20) const;

  StreamingMultiprocessor& sm(std::size_t i) { return *parts_.sms[i]; }
  L1DataCache& l1(std::size_t i) { return *parts_.l1s[i]; }
  std::size_t num_l2() const { return parts_.l2s.size(); }
  L2CacheBank& l2(std::size_t i) { return *parts_.l2s[i]; }
  CtaDispatcher& dispatcher() { return *parts_.dispatcher; }
  // The network (module 0's in the mcm topology).
  const Interconnect& noc() const { return parts_.noc ? *parts_.noc : *parts_.module_nocs.at(0); }
  // The zone decoder of the mcm topology, nullptr elsewhere.
  NumaAddressMapper* numa() const { return numa_.get(); }
  // The one address map every block that routes by address shares.
  const AddressMap& address_map() const { return address_map_; }
  // The mechanism plugged in under `name` (e.g. "icc", "mdb"), or nullptr when it is off.
  Mechanism* mechanism(const std::string& name) const;
  template <class M>
  M* mechanism(const std::string& name) const {
    return dynamic_cast<M*>(mechanism(name));
  }
  // Adds the topology's and the mechanisms' sections (noc_ports, mdb_history, ...) to the
  // run report's top-level JSON.
  void report(nlohmann::json& extra) const;

 private:
  void kernel_begin(std::uint32_t seq, const Kernel& k);
  void kernel_end(std::uint32_t seq, const Kernel& k);

  GpuConfig cfg_;
  AddressMap address_map_;                   // before the blocks that hold references to it
  std::shared_ptr<NumaAddressMapper> numa_;  // mcm topology: registered on address_map_
  SimContext ctx_;
  std::unique_ptr<FunctionalMemory> backing_;
  std::vector<std::unique_ptr<Mechanism>> mechanisms_;
  PlatformParts parts_;
  std::unique_ptr<Watchdog> watchdog_;
  std::vector<KernelStats> kernel_stats_;
  std::uint64_t verified_words_ = 0;
};

}  // namespace locsim
