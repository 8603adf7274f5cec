// The current simulation time, read inline.
#pragma once
#include <systemc>

namespace locsim {

// sc_core::sc_time_stamp() without its out-of-line library call, and without the out-of-line
// copy of sc_get_curr_simcontext() GCC often keeps (its first-use branch allocates): the same
// value, read several times per transaction and activation (docs/performance.md).
inline const sc_core::sc_time& sim_time() {
  sc_core::sc_simcontext* c = sc_core::sc_curr_simcontext;
  if (__builtin_expect(c == nullptr, 0)) c = sc_core::sc_get_curr_simcontext();
  return c->time_stamp();
}

}  // namespace locsim
