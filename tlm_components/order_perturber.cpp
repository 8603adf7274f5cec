#include "tlm_components/order_perturber.h"

#include <utility>

namespace locsim {

OrderPerturber::OrderPerturber(sc_core::sc_module_name name, const ClockDomain& clk,
                               std::uint64_t seed, std::function<bool()> finished)
    : sc_module(name), clk_(clk), state_(seed), finished_(std::move(finished)) {
  SC_HAS_PROCESS(OrderPerturber);
  SC_METHOD(wake_method);
}

void OrderPerturber::wake_method() {
  if (finished_()) return;  // no further wake-up: the run may end
  // xorshift64: the next wake-up 1-64 core cycles ahead, on a clock edge (where the blocks'
  // own events fall, so the ties change).
  state_ ^= state_ << 13;
  state_ ^= state_ >> 7;
  state_ ^= state_ << 17;
  next_trigger(clk_.period() * static_cast<double>(1 + (state_ >> 58)));
}

}  // namespace locsim
