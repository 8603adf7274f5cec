// A block's clock: converts between SystemC time and cycles and aligns events to edges. There is
// no sc_clock: blocks compute the edge of their next decision and sleep until then.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <systemc>

#include "model/params.h"
#include "model/types.h"
#include "tlm_components/sim_time.h"

namespace locsim {

class ClockDomain {
 public:
  ClockDomain() = default;
  explicit ClockDomain(sc_core::sc_time period) : period_(period), ps_(to_ps(period)) {}
  // Throws std::invalid_argument outside the range Frequency parameters accept (a period that
  // rounds to 0 ps would divide by zero; a huge one overflows the time axis).
  static ClockDomain from_hz(double hz) {
    if (!(hz >= kMinFrequencyHz && hz <= kMaxFrequencyHz))
      throw std::invalid_argument("clock frequency " + std::to_string(hz) +
                                  " Hz outside 1kHz..100GHz");
    return ClockDomain(sc_core::sc_time(1e12 / hz, sc_core::SC_PS));
  }
  const sc_core::sc_time& period() const { return period_; }
  Cycle cycle(const sc_core::sc_time& t) const { return to_ps(t) / ps_; }
  Cycle now() const { return cycle(sim_time()); }
  sc_core::sc_time at(Cycle c) const {
    // The usual question is whether now is cycle c's edge: then the time is sim_time() itself
    // and the out-of-line sc_time::from_value() is not needed.
    const sc_core::sc_time& n = sim_time();
    const std::uint64_t t = c * ps_;
    return t == to_ps(n) ? n : sc_core::sc_time::from_value(t);  // resolution is 1 ps
  }
  // Cycle c's edge in ps, or now if that edge is past: the wake-up time for
  // Activation::notify_at() (no sc_time built).
  std::uint64_t ps_at(Cycle c) const {
    const std::uint64_t t = c * ps_, n = to_ps(sim_time());
    return t > n ? t : n;
  }
  // Whether now is the edge of cycle c (sim_time() == at(c), without building an sc_time).
  bool on_edge(Cycle c) const { return to_ps(sim_time()) == c * ps_; }
  // First cycle whose edge is at or after now.
  Cycle next_edge_cycle() const {
    std::uint64_t n = to_ps(sim_time());
    return (n + ps_ - 1) / ps_;
  }

 private:
  // locsim keeps SystemC's default 1 ps time resolution (checked at platform elaboration).
  static std::uint64_t to_ps(const sc_core::sc_time& t) { return t.value(); }
  sc_core::sc_time period_{1, sc_core::SC_NS};
  std::uint64_t ps_ = 1000;
};

}  // namespace locsim
