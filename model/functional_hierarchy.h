// Functional replay of the cache hierarchy: the timed model's own L1D / L2 policy objects
// (model/l1_cache_policy.h, l2_cache_policy.h), with no SystemC and no timing. Every request
// completes instantly, so there is no MSHR merging (a second access to a line being fetched in the
// timed model is a hit here, or a miss if its sectors were not fetched), no reservation failure and
// no queueing.
//
//  * L1D per SM: allocate-on-miss, LRU, sectors as configured (a sectored L1 fetches the sectors
//    asked for, an unsectored one the whole line); stores are write-through, no-write-allocate and
//    evict a present line (write-evict); atomics bypass (performed at the L2) and also evict;
//    l1_enabled=false sends every load to the L2 (`bypassed`).
//  * L2 sub-partitions selected by the platform's AddressMap: sectored, write-back, write-allocate;
//  a store
//    that fully covers its missing sectors allocates without fetching, anything else fetches the
//    missing sectors (one DRAM read request); a dirty victim is one DRAM write request.
//  * Scheduling (run_kernel): CTAs go to SMs in dispatcher.policy's order with max_ctas_per_sm
//    occupancy; a freed CTA slot is refilled at the end of the round in which it freed. A round
//    gives each SM, in SM order, one turn: its next warp in round-robin order (skipping warps
//    waiting at a barrier) executes one WarpInst entry (a Compute block is one turn). Barriers
//    release when every live warp of the CTA has arrived. Deterministic.
// Statistics use the timed model's kinds and names (see counter list in the constructor).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/address_map.h"
#include "model/coalescer.h"
#include "model/cta_policy.h"
#include "model/l1_cache_policy.h"
#include "model/l2_cache_policy.h"
#include "model/stats.h"
#include "model/tag_array.h"
#include "model/types.h"

namespace locsim {

class Kernel;
class Workload;

struct FunctionalConfig {
  std::uint32_t num_sms = 15;
  std::uint32_t sms_per_cluster = 1;
  SmResources resources;
  std::uint32_t coalesce_sector_bytes = 32;  // coalescer sector granularity (line = L1 line)
  bool l1_enabled = true;
  bool l1_store_hit_update = false;  // l1d.write_hit=update (L1PolicyConfig::store_hit_update)
  std::string cta_policy = "rr";     // dispatcher.policy
  CtaPolicyArgs cta_policy_args;
  CacheGeometry l1{32, 4, 128, 128, SetIndexing::Linear};
  CacheGeometry l2{64, 16, 128, 32, SetIndexing::Linear};  // one sub-partition
  bool l2_bank_local_index = true;                         // l2.set_index
  // Throws std::invalid_argument naming the problem.
  void validate() const;
};

class FunctionalHierarchy {
 public:
  // `map` (the platform's address map) must outlive the hierarchy.
  FunctionalHierarchy(const FunctionalConfig& cfg, const AddressMap& map);
  // The L2 tag arrays point at bank_index_.
  FunctionalHierarchy(const FunctionalHierarchy&) = delete;
  FunctionalHierarchy& operator=(const FunctionalHierarchy&) = delete;

  const FunctionalConfig& config() const { return cfg_; }
  StatRegistry& stats() { return stats_; }
  const StatRegistry& stats() const { return stats_; }
  // Sum of a counter over its instances (kind "l1d", "l2", "dram", "sm"), e.g. total("l2","hits").
  std::uint64_t total(const std::string& kind, const std::string& name) const {
    return stats_.total(kind, name);
  }

  // One coalesced line request of SM `sm` (the L1 line holding it, bytes touched).
  void access(std::uint32_t sm, AccessKind kind, const LineRequest& r);
  // A whole warp memory instruction: coalesced, then one access() per line. Counts
  // sm.global_mem_insts and sm.line_requests.
  void access_warp(std::uint32_t sm, AccessKind kind, const std::array<Addr, kWarpSize>& addrs,
                   std::uint32_t active_mask, std::uint32_t access_bytes);
  // Kernel boundary: drops every L1 line (non-coherent L1s).
  void invalidate_l1s();

  // Runs every CTA of k (see the scheduling rules above). Throws std::invalid_argument when one
  // CTA does not fit on an SM.
  void run_kernel(const Kernel& k);
  struct KernelRecord {
    std::string name;
    std::uint32_t ctas = 0;
    std::uint32_t max_ctas_per_sm = 0;
    std::string occupancy_limiter;
    StatSnapshot begin, end;
  };
  // Runs the kernels in order, L1s invalidated before each; returns one record per kernel.
  std::vector<KernelRecord> run(const Workload& w);

  const TagArray& l1(std::uint32_t sm) const { return l1_[sm].tags(); }
  const TagArray& l2(std::uint32_t subpartition) const { return l2_[subpartition].tags(); }
  const AddressMap& address_map() const { return map_; }

 private:
  void l2_access(AccessKind kind, Addr line, const ByteMask& bytes);

  FunctionalConfig cfg_;
  const AddressMap& map_;
  L2BankIndex bank_index_{map_};  // L2 sets on the bank-local address (l2.set_index = bank)
  // The timed caches' own decisions (model/l1_cache_policy.h, l2_cache_policy.h), with unlimited
  // MSHRs and queues and every fill arriving at once; the handles are unused.
  std::vector<L1CachePolicy<int>> l1_;
  std::vector<L2CachePolicy<int>> l2_;
  std::vector<LineRequest> coalesced_;
  StatRegistry stats_;
  struct L1Counters {
    Counter *accesses, *hits, *misses, *sector_misses, *bypassed, *stores, *atomics, *evictions,
        *fills;
  };
  struct L2Counters {
    Counter *accesses, *hits, *misses, *writebacks, *evictions, *stores, *atomics, *fills;
  };
  struct SmCounters {
    Counter *warp_insts, *thread_insts, *mem_insts, *line_requests, *shared_insts, *ctas;
  };
  std::vector<L1Counters> l1c_;
  std::vector<L2Counters> l2c_;
  std::vector<SmCounters> smc_;
  std::vector<Counter*> dram_reads_, dram_writes_;
  // dispatcher.policy, one for the whole run like the dispatcher's (rr's next SM carries over).
  std::unique_ptr<CtaSchedulingPolicy> policy_;

 public:
  const CtaSchedulingPolicy& cta_policy() const { return *policy_; }

 private:
};

}  // namespace locsim
