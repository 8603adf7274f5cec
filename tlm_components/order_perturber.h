// Measures how much a result depends on the order in which SystemC runs processes that become
// runnable at the same time (docs/validation.md, "Event-order sensitivity"). SystemC's timed
// events sit in a heap ordered by time only, so among events of equal time the order follows
// everything else in the heap. This process does nothing but wake at pseudo-random clock edges:
// its events change that order and never a block's state, so the spread of a statistic over a
// few seeds is the spread the order alone causes.
#pragma once
#include <cstdint>
#include <functional>
#include <systemc>

#include "tlm_components/clock_domain.h"

namespace locsim {

class OrderPerturber : public sc_core::sc_module {
 public:
  // `seed` != 0; `finished` tells when the run's work is done (the process then stops).
  OrderPerturber(sc_core::sc_module_name name, const ClockDomain& clk, std::uint64_t seed,
                 std::function<bool()> finished);

 private:
  void wake_method();
  ClockDomain clk_;
  std::uint64_t state_;
  std::function<bool()> finished_;
};

}  // namespace locsim
