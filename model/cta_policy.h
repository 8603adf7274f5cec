// CTA (thread block) scheduling policies of the CTA dispatcher. At each kernel start a policy
// learns the kernel and the topology (KernelLaunch); then, whenever the dispatcher may issue, it
// sees how many CTA contexts each SM has free and returns the (SM, CTA) pairs to launch now. Pure
// algorithm: the dispatcher module owns timing. Policies are listed in one table
// (cta_policy_registry()) with their names, aliases and parameters.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/stats.h"
#include "model/workload/access_sets.h"
#include "model/workload/kernel.h"

namespace locsim {

struct GpuTopology {
  std::uint32_t num_sms = 15;
  std::uint32_t sms_per_cluster = 1;
  std::uint32_t num_modules = 1;  // GPU modules (chiplets) of an MCM-GPU; 1 = monolithic
  std::uint32_t num_clusters() const { return num_sms / sms_per_cluster; }
  std::uint32_t cluster_of(std::uint32_t sm) const { return sm / sms_per_cluster; }
};

struct SmView {
  std::uint32_t sm = 0;
  std::uint32_t free_slots = 0;  // CTAs of the current kernel this SM can still accept now
};

struct CtaAssignment {
  std::uint32_t sm = 0;
  std::uint32_t cta = 0;  // linear CTA id in the grid
  bool operator==(const CtaAssignment& o) const { return sm == o.sm && cta == o.cta; }
};

// What a policy learns when a kernel starts. References are valid for the begin_kernel call;
// the kernel and the access-set provider also until the kernel's last CTA has been selected.
struct KernelLaunch {
  // Grid and CTA dimensions, data structures with their Locality Descriptors.
  const Kernel& kernel;
  std::uint32_t max_ctas_per_sm = 0;  // occupancy: at most this many CTAs fit on one SM
  // Per-CTA access sets, computed only for the CTAs a policy asks about.
  CtaAccessSetProvider& access_sets;
  GpuTopology topology;

  std::uint32_t num_ctas() const { return kernel.num_ctas(); }
};

class CtaSchedulingPolicy {
 public:
  virtual ~CtaSchedulingPolicy() = default;
  virtual const char* name() const = 0;
  // A kernel starts.
  virtual void begin_kernel(const KernelLaunch& launch) = 0;
  // Appends to out the launches to make now. sms has one entry per SM, in SM order.
  virtual void select(const std::vector<SmView>& sms, std::vector<CtaAssignment>& out) = 0;
  virtual void cta_finished(std::uint32_t /*sm*/, std::uint32_t /*cta*/) {}
  // CTAs not yet launched.
  virtual std::uint32_t remaining() const = 0;
  // Policies with statistics of their own register them under `path` (called once, at
  // elaboration).
  virtual void register_stats(StatRegistry& /*reg*/, const std::string& /*path*/) {}
  // Host wall time spent analysing kernels (PAVER's graph and partitioning), seconds.
  virtual double analysis_seconds() const { return 0; }
};

// Round-robin over SMs: each visit launches one CTA (CTAs in linear order) and the next visit
// starts after the SM that received the previous CTA, repeated while CTAs and slots remain. Every
// kernel starts at SM 0, so a kernel's placement does not depend on how many CTAs the kernels
// before it had; `carry_over` keeps GPGPU-Sim's pointer, which continues from the previous kernel.
class RoundRobinPolicy final : public CtaSchedulingPolicy {
 public:
  explicit RoundRobinPolicy(bool carry_over = false) : carry_over_(carry_over) {}
  const char* name() const override { return "rr"; }
  void begin_kernel(const KernelLaunch& launch) override;
  void select(const std::vector<SmView>& sms, std::vector<CtaAssignment>& out) override;
  std::uint32_t remaining() const override { return num_ctas_ - next_cta_; }

 private:
  bool carry_over_ = false;
  std::uint32_t num_ctas_ = 0;
  std::uint32_t next_cta_ = 0;
  std::uint32_t next_sm_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Policies of Wang et al., "Intra-Cluster Coalescing and Distributed-Block Scheduling to Reduce GPU
// NoC Pressure" (Sec. 2.3, Sec. 4.1, Sec. 5, Fig. 6). CTA ids are 0-based here (the paper's CTA 1
// is CTA 0). Clusters are groups of sms_per_cluster consecutive SM ids (GpuTopology::cluster_of).
// Every policy below restarts its SM pointer(s) at the first SM at begin_kernel.
// ---------------------------------------------------------------------------------------------

// Round-robin over SMs in a fixed visiting order, one CTA per visit, CTAs in linear order; the next
// search starts after the SM that received the previous CTA. Base of two-level-rr and global-rr.
class OrderedRoundRobinPolicy : public CtaSchedulingPolicy {
 public:
  void begin_kernel(const KernelLaunch& launch) override;
  void select(const std::vector<SmView>& sms, std::vector<CtaAssignment>& out) override;
  std::uint32_t remaining() const override { return num_ctas_ - next_cta_; }

 protected:
  explicit OrderedRoundRobinPolicy(bool two_level) : two_level_(two_level) {}

 private:
  bool two_level_;
  GpuTopology topo_;
  std::uint32_t num_ctas_ = 0;
  std::uint32_t next_cta_ = 0;
  std::uint32_t next_pos_ = 0;  // position in the visiting order
};

// "two-level-rr" (Sec. 2.3 / Sec. 4.1, two-level round-robin, the paper's baseline [11]): CTAs go
// first across clusters (first SM of cluster 0, first SM of cluster 1, ...), then to the second SM
// of every cluster, etc.; additional CTAs per SM are assigned the same way. Visiting order: SM
// (cluster c, index j) is visited at position j * num_clusters + c.
class TwoLevelRoundRobinPolicy final : public OrderedRoundRobinPolicy {
 public:
  TwoLevelRoundRobinPolicy() : OrderedRoundRobinPolicy(true) {}
  const char* name() const override { return "two-level-rr"; }
};

// "global-rr" (Sec. 4.1, global / one-level round-robin): consecutive CTAs go to consecutive SMs in
// global SM order (all SMs of cluster 0, then cluster 1, ...), wrapping around for additional CTAs.
// Same visiting rule as "rr", except that the pointer restarts at SM 0 for every kernel.
class GlobalRoundRobinPolicy final : public OrderedRoundRobinPolicy {
 public:
  GlobalRoundRobinPolicy() : OrderedRoundRobinPolicy(false) {}
  const char* name() const override { return "global-rr"; }
};

// "greedy" (alias "greedy-clustering"; Sec. 4.1, greedy-clustering): CTAs from the global pool, in
// order, fill the first cluster that has a free context: within that cluster they go round-robin
// over its SMs (one CTA per SM per pass) until none of its SMs can take more, then the next
// cluster is filled. Every select() starts again at cluster 0, so freed contexts of low clusters
// are refilled first (Fig. 6: after CTA 1 finishes, CTA 9 goes to the SM that ran CTA 1).
class GreedyClusteringPolicy final : public CtaSchedulingPolicy {
 public:
  const char* name() const override { return "greedy"; }
  void begin_kernel(const KernelLaunch& launch) override;
  void select(const std::vector<SmView>& sms, std::vector<CtaAssignment>& out) override;
  std::uint32_t remaining() const override { return num_ctas_ - next_cta_; }

 private:
  GpuTopology topo_;
  std::uint32_t num_ctas_ = 0;
  std::uint32_t next_cta_ = 0;
  std::vector<std::uint32_t> rr_;  // per cluster: index (within the cluster) of the next SM
};

// Per-cluster contiguous CTA pools of the distributed policies: cluster c of C owns CTAs
// [c*N/C, (c+1)*N/C) (Sec. 4.1: "splits up the set of CTAs evenly across the two clusters").
class ClusterPoolPolicy : public CtaSchedulingPolicy {
 public:
  void begin_kernel(const KernelLaunch& launch) override;
  std::uint32_t remaining() const override;

 protected:
  struct Pool {
    std::uint32_t next = 0, end = 0;  // unlaunched CTAs [next, end)
    std::uint32_t rr = 0;             // index (within the cluster) of the next SM to visit
  };
  GpuTopology topo_;
  std::uint32_t max_per_sm_ = 0;
  std::vector<Pool> pools_;
  // View indices of the SMs of each cluster (SM ids from the view), in SM order.
  std::vector<std::vector<std::uint32_t>> members(const std::vector<SmView>& sms) const;
};

// "distributed" (Sec. 4.1, distributed scheduling as in MCM-GPU [6]): an SM only takes CTAs from
// its cluster's pool, in order; within a cluster CTAs go round-robin over its SMs, one per visit
// (Sec. 5: "CTAs are allocated following a (default) round-robin strategy within a cluster"). Fig.
// 6: after CTA 1 finishes, the cluster's next CTA (CTA 5) goes to the freed SM. Empty pool: the
// paper describes no stealing from other clusters' pools (and attributes the losses on SRAD/BP to
// workload imbalance), so once its cluster's pool is empty an SM stays idle for the rest of the
// kernel, even when other clusters still have CTAs.
class DistributedPolicy final : public ClusterPoolPolicy {
 public:
  const char* name() const override { return "distributed"; }
  void select(const std::vector<SmView>& sms, std::vector<CtaAssignment>& out) override;
};

// "distributed-block" (Sec. 5, distributed-block scheduling; Fig. 6): cluster pools as in
// "distributed"; within a cluster, pairs of consecutive pool CTAs go to the same SM, pairs
// round-robin over the cluster's SMs. Delayed issue: a pair (also the pool's last, odd CTA) is only
// issued to an SM with two free CTA contexts ("CTA 5 can be allocated to SM #1 only when both CTAs
// 1 and 2 have finished their execution"). Exception: the last unlaunched CTA of the whole grid is
// issued to any SM of its cluster with one free context. With single_when_pool_has_one, the
// exception instead applies whenever the cluster's pool has one CTA left (contradicts Fig. 6,
// where CTA 5 is the last CTA of cluster #1's pool and still waits). If an SM holds fewer than two
// CTAs (max_ctas_per_sm < 2), blocks degrade to single CTAs (else nothing could ever issue).
class DistributedBlockPolicy final : public ClusterPoolPolicy {
 public:
  explicit DistributedBlockPolicy(bool single_when_pool_has_one = false)
      : single_when_pool_has_one_(single_when_pool_has_one) {}
  const char* name() const override { return "distributed-block"; }
  void select(const std::vector<SmView>& sms, std::vector<CtaAssignment>& out) override;

 private:
  bool single_when_pool_has_one_;
};

// "bcs" (block CTA scheduling [7], as summarized in Sec. 5): pairs of consecutive CTAs of the
// global pool (0+1, 2+3, ...) go to the same SM; pairs round-robin over all SMs in global SM order.
// Delayed issue: a pair is only issued to an SM with two free contexts; the last CTA of an odd grid
// is issued alone to any SM with one free context. Degrades to single CTAs if max_ctas_per_sm < 2.
class BlockCtaSchedulingPolicy final : public CtaSchedulingPolicy {
 public:
  const char* name() const override { return "bcs"; }
  void begin_kernel(const KernelLaunch& launch) override;
  void select(const std::vector<SmView>& sms, std::vector<CtaAssignment>& out) override;
  std::uint32_t remaining() const override { return num_ctas_ - next_cta_; }

 private:
  std::uint32_t num_ctas_ = 0;
  std::uint32_t next_cta_ = 0;
  std::uint32_t max_per_sm_ = 0;
  std::uint32_t next_pos_ = 0;
};

// Policy parameters given as name=value strings.
using CtaPolicyArgs = std::map<std::string, std::string>;

struct CtaPolicyParam {
  std::string name;
  std::string default_value;
  std::string description;
};

// One entry of the policy table: the single source of the factory, of cta_policy_names() and of
// the choices of `dispatcher.policy`.
struct CtaPolicyInfo {
  std::string name;
  std::vector<std::string> aliases;  // other names accepted by make_cta_policy
  std::string description;
  std::vector<CtaPolicyParam> params;
  // Receives every declared parameter (given value or default).
  std::function<std::unique_ptr<CtaSchedulingPolicy>(const CtaPolicyArgs&)> make;
};

// The policies in table order.
const std::vector<CtaPolicyInfo>& cta_policy_registry();
// Factory by name or alias. Throws std::invalid_argument for an unknown name (listing the known
// names and aliases), an undeclared parameter or a bad parameter value.
std::unique_ptr<CtaSchedulingPolicy> make_cta_policy(const std::string& name,
                                                     const CtaPolicyArgs& args = {});
// Policy names in table order.
std::vector<std::string> cta_policy_names();
// Every accepted name: the policy names in table order, then their aliases.
std::vector<std::string> cta_policy_choices();

// Per-SM resource limits and a kernel's per-CTA needs -> how many CTAs fit on one SM.
struct SmResources {
  std::uint32_t max_threads = 1536;
  std::uint32_t max_warps = 48;
  std::uint32_t max_ctas = 8;
  std::uint32_t registers = 32768;
  std::uint32_t shared_mem_bytes = 49152;
  std::uint32_t register_alloc_unit = 64;  // registers are allocated per warp in units of this
};

struct CtaNeeds {
  std::uint32_t threads = 256;
  std::uint32_t regs_per_thread = 16;
  std::uint32_t shared_mem_bytes = 0;
};

// Returns 0 when one CTA does not fit at all. limiter (optional) receives the binding resource
// name.
std::uint32_t max_ctas_per_sm(const SmResources& sm, const CtaNeeds& cta,
                              std::string* limiter = nullptr);
// For a CTA that does not fit (max_ctas_per_sm = 0 with this limiter): "one CTA needs N X, more
// than sm.KEY (M)", naming the parameter to change.
std::string cta_does_not_fit(const std::string& limiter, const CtaNeeds& cta,
                             const SmResources& sm);

}  // namespace locsim
