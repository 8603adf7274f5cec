// CTA (thread block) scheduling policies of the CTA dispatcher. A policy sees, whenever the
// dispatcher may issue, how many CTA contexts each SM has free, and returns the (SM, CTA) pairs to
// launch now. Pure algorithm: the dispatcher module owns timing.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace locsim {

struct GpuTopology {
  std::uint32_t num_sms = 15;
  std::uint32_t sms_per_cluster = 1;
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

class CtaSchedulingPolicy {
 public:
  virtual ~CtaSchedulingPolicy() = default;
  virtual const char* name() const = 0;
  // A kernel of num_ctas CTAs starts; at most max_ctas_per_sm fit on one SM.
  virtual void begin_kernel(std::uint32_t num_ctas, std::uint32_t max_ctas_per_sm,
                            const GpuTopology& topo) = 0;
  // Appends to out the launches to make now. sms has one entry per SM, in SM order.
  virtual void select(const std::vector<SmView>& sms, std::vector<CtaAssignment>& out) = 0;
  virtual void cta_finished(std::uint32_t /*sm*/, std::uint32_t /*cta*/) {}
  // CTAs not yet launched.
  virtual std::uint32_t remaining() const = 0;
};

// GPGPU-Sim's default: SMs are visited round-robin starting after the SM that received the previous
// CTA; each visit launches one CTA (CTAs in linear order), repeated while CTAs and slots remain.
class RoundRobinPolicy final : public CtaSchedulingPolicy {
 public:
  const char* name() const override { return "rr"; }
  void begin_kernel(std::uint32_t num_ctas, std::uint32_t max_ctas_per_sm,
                    const GpuTopology& topo) override;
  void select(const std::vector<SmView>& sms, std::vector<CtaAssignment>& out) override;
  std::uint32_t remaining() const override { return num_ctas_ - next_cta_; }

 private:
  std::uint32_t num_ctas_ = 0;
  std::uint32_t next_cta_ = 0;
  std::uint32_t next_sm_ = 0;
};

// Factory by name ("rr"); throws std::invalid_argument listing the known names.
std::unique_ptr<CtaSchedulingPolicy> make_cta_policy(const std::string& name);
std::vector<std::string> cta_policy_names();

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

}  // namespace locsim
