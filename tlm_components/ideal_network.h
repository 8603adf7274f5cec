// A network with no cost: every request reaches the `out` binding its sender named
// (GpuExtension::noc_target) in the delta it was sent, every reply returns to its `in` binding
// likewise, and nothing limits bandwidth; only the endpoints' own back-pressure applies. It
// carries the core-to-core traffic of seed 002's hypothetical shared L1 (§2.2, Fig. 2: "zero
// cycle, zero bandwidth" communication with the home L1).
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <systemc>
#include <tlm>
#include <vector>

#include "tlm_components/interconnect.h"
#include "tlm_components/sim_context.h"

namespace locsim {

class IdealNetwork : public Interconnect {
 public:
  IdealNetwork(sc_core::sc_module_name name, std::uint32_t sources, std::uint32_t targets,
               SimContext& ctx);
  std::uint32_t ports() const override { return sources_; }
  std::uint32_t targets() const override { return targets_; }
  std::uint64_t port_request_flits(std::uint32_t) const override { return 0; }
  std::uint64_t port_reply_flits(std::uint32_t) const override { return 0; }
  Cycle noc_cycles() const override { return 0; }

 private:
  void in_b_transport(int id, Payload& gp, sc_core::sc_time& d) override;
  unsigned int in_transport_dbg(int id, Payload& gp) override;
  std::uint32_t target_of(const Payload& gp) const;
  void forward(std::uint32_t t);
  void deliver(std::uint32_t s);

  std::uint32_t sources_, targets_;
  std::vector<std::deque<Payload*>> to_target_, to_source_;
  Counter &requests_, &replies_;
};

}  // namespace locsim
