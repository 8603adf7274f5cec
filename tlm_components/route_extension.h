// The return path of a request through nested networks (module crossbar -> inter-module link ->
// crossbar): each interconnect pushes the ingress binding a request entered by when it accepts
// it, routes the reply back to the binding on top, and pops it when the reply leaves. Replies
// therefore never depend on who issued the request (SM id, cluster), only on the path it took.
// Attached once to every pooled payload (PayloadPool), so routing allocates nothing.
#pragma once
#include <cstdint>
#include <systemc>
#include <tlm>

#include "tlm_components/gpu_extension.h"

namespace locsim {

struct RouteExtension : tlm::tlm_extension<RouteExtension> {
  static constexpr unsigned kMaxHops = 4;  // nesting depth of interconnects on one path

  void push(std::uint32_t ingress) {
    sc_assert(depth_ < kMaxHops && ingress <= 0xffff);
    hops_[depth_++] = static_cast<std::uint16_t>(ingress);
  }
  // The ingress binding of the innermost interconnect the request is in. Precondition: depth().
  std::uint32_t top() const {
    sc_assert(depth_ > 0);
    return hops_[depth_ - 1];
  }
  std::uint32_t pop() {
    const std::uint32_t p = top();
    --depth_;
    return p;
  }
  unsigned depth() const { return depth_; }
  void clear() { depth_ = 0; }

  tlm::tlm_extension_base* clone() const override { return new RouteExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const RouteExtension&>(other);
  }

 private:
  std::uint16_t hops_[kMaxHops] = {};
  std::uint8_t depth_ = 0;
};

inline RouteExtension& route_ext(tlm::tlm_generic_payload& gp) {
  if (PooledPayload* p = as_pooled(gp)) return *p->route;  // see as_pooled()
  RouteExtension* e = nullptr;
  gp.get_extension(e);
  sc_assert(e != nullptr);
  return *e;
}

}  // namespace locsim
