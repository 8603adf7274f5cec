// Seed 002 (Ibrahim et al., "Analyzing and Leveraging Shared L1 Caches in GPUs", PACT 2020) as a
// platform mechanism: one SharedL1Port per core between the SM and its L1 (§3.2, Fig. 4), the
// home mapping (§3.1), Chunk and Min(H,L2) (§3.3), DynEB / DynAMAT per core (§4), and the
// oracles of §2 (replication ratio, replicas, useful bytes per remote line).
//
// l1d.organization picks the organisation; shared_l1.network the core-to-core path: `noc` (the
// mesh's own request and reply networks, one more injection and ejection binding per core) or
// `ideal` (the hypothetical zero-cost shared L1 of §2.2). With l1d.organization=private and
// shared_l1.oracle=true only the oracles run (the baseline's replication, Fig. 1).
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/address_map.h"
#include "model/dyneb.h"
#include "model/l1_cache_policy.h"
#include "model/shared_l1.h"
#include "platforms/mechanism.h"
#include "tlm_components/interconnect.h"
#include "tlm_components/shared_l1_port.h"

namespace locsim {

MechanismInfo shared_l1_mechanism_info();

enum class CoreNetwork { Noc, Ideal, Butterfly, ViaL2 };

struct SharedL1MechanismConfig {
  L1Organization organization = L1Organization::Private;
  HomeFold home = HomeFold::Mod;
  CoreNetwork network = CoreNetwork::Noc;
  std::uint32_t remote_queue = 8;
  double noc_clock_hz = 700e6;          // the butterfly's clock (the platform's NoC clock)
  std::uint32_t memory_partitions = 8;  // sizes the butterfly by all nodes (R7.2)
  DynamicL1Config dynamic;
  bool kernel_reset = false;       // dyneb.kernel_reset: restart sampling per kernel (I-6)
  bool oracle = false;             // replication ratio, replicas, useful bytes
  Cycle replica_interval = 10000;  // core cycles between replica samples (R8.2)
};

class L1DataCache;

class SharedL1Mechanism final : public Mechanism {
 public:
  explicit SharedL1Mechanism(const SharedL1MechanismConfig& cfg) : cfg_(cfg) {}
  const char* name() const override { return "shared_l1"; }
  void create_units(PlatformBuild& b) override;
  bool fronts_l1s() const override { return has_ports(); }
  void wire_sm(PlatformBuild& b, std::uint32_t sm) override;
  std::uint32_t noc_bindings_per_core() const override {
    return has_ports() && (cfg_.network == CoreNetwork::Noc || cfg_.network == CoreNetwork::ViaL2)
               ? 1
               : 0;
  }
  void wire_units(PlatformBuild& b) override;
  void elaborate(PlatformBuild& b) override;
  void kernel_begin(std::uint32_t seq, const Kernel& k) override;
  void report(nlohmann::json& extra) const override;

  const SharedL1MechanismConfig& config() const { return cfg_; }
  SharedL1Port& port(std::size_t core) { return *ports_[core]; }
  const DynamicL1Selector& selector(std::size_t core) const { return selectors_[core]; }
  const ReplicationOracle& oracle() const { return oracle_; }

 private:
  bool has_ports() const { return cfg_.organization != L1Organization::Private; }
  SharedL1Route decide(std::uint32_t core, const Payload& gp);
  void on_load_outcome(std::uint32_t core, Addr line, L1Outcome o, const Payload& gp);
  void maybe_sample_replicas();
  std::uint32_t hops(std::uint32_t node_a, std::uint32_t node_b) const;

  SharedL1MechanismConfig cfg_;
  std::unique_ptr<HomeMap> home_;
  std::vector<std::unique_ptr<SharedL1Port>> ports_;
  std::unique_ptr<Interconnect> core_net_;  // shared_l1.network=ideal|butterfly
  std::vector<DynamicL1Selector> selectors_;
  std::vector<L1DataCache*> l1s_;
  std::vector<const TagArray*> tags_;
  const AddressMap* map_ = nullptr;
  std::uint32_t home_target_base_ = 0;  // `out` binding of core 0's home port
  // Min(H,L2) on a mesh: node of each core and of each L2 sub-partition, the mesh's width.
  std::vector<std::uint32_t> core_node_, sub_node_;
  std::uint32_t mesh_cols_ = 0;
  ReplicationOracle oracle_;
  Cycle next_replica_sample_ = 0;
  double core_hz_ = 1.4e9;
  struct Stats {
    Counter *checked, *replicated, *replica_lines, *replica_copies;
    Counter* useful[5];
    Counter *home_replies, *l2_replies, *direct_l2_replies;
    Distribution* miss_latency;
  } st_{};
  // Per core: when each outstanding L1 miss left (the round trip to L2, spec R6.4 / V5).
  std::vector<std::unordered_map<Addr, Cycle>> miss_sent_;
  // Remote loads that missed at their home (DynAMAT's L1_RemoteMissRate, eq. 2).
  std::unordered_set<const Payload*> missed_at_home_;
  Cycle now() const;
};

}  // namespace locsim
