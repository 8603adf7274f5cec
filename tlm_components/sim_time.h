// The current simulation time, read inline.
#pragma once
#include <systemc>

namespace locsim {

namespace detail {
// While the activation scheduler runs, the time of its activations: SystemC's kernel time, or a
// time the kernel has not reached yet (it steps through its own due times itself while no other
// SystemC process has anything to do before them: ActivationScheduler::run()); null otherwise.
inline const sc_core::sc_time* sim_time_ahead = nullptr;
// Set by sim_time_ahead_by(), i.e. by every SystemC event notification from a block's process:
// the run-ahead asks the kernel again only then (ActivationScheduler::run()).
inline bool kernel_touched = false;
}  // namespace detail

// sc_core::sc_time_stamp() without its out-of-line library call, and without the out-of-line
// copy of sc_get_curr_simcontext() GCC often keeps (its first-use branch allocates): the same
// value, read several times per transaction and activation (docs/performance.md). Inside an
// activation the scheduler has run ahead of SystemC's kernel, the activation's time: blocks
// read the time through this function (or ClockDomain), never through sc_time_stamp().
inline const sc_core::sc_time& sim_time() {
  if (detail::sim_time_ahead) return *detail::sim_time_ahead;
  sc_core::sc_simcontext* c = sc_core::sc_curr_simcontext;
  if (__builtin_expect(c == nullptr, 0)) c = sc_core::sc_get_curr_simcontext();
  return c->time_stamp();
}

// How far sim_time() is ahead of SystemC's kernel time (zero outside a run-ahead). A SystemC
// event notified from a block's process, with a delay or none, must add it: the kernel counts
// the delay from its own time (TLM-2.0's timing annotation, as in temporal decoupling). The call
// also tells the scheduler that the kernel's next event may have changed: between such calls the
// run-ahead reuses the kernel's last answer instead of asking it before every step.
inline sc_core::sc_time sim_time_ahead_by() {
  detail::kernel_touched = true;
  if (!detail::sim_time_ahead) return sc_core::SC_ZERO_TIME;
  return *detail::sim_time_ahead - sc_core::sc_get_curr_simcontext()->time_stamp();
}

}  // namespace locsim
