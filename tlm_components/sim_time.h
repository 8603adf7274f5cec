// The current simulation time, read inline.
#pragma once
#include <cstdint>
#include <systemc>

namespace locsim {

namespace detail {
// The time sim_time() reports: SystemC's kernel time (the current context's, created here at
// static initialisation if it does not exist yet, as a namespace-scope sc_event would), or while
// the activation scheduler runs, the time of its activations (it steps through its own due times
// ahead of the kernel while no other SystemC process has anything to do before them:
// ActivationScheduler::run()). Always valid, so that sim_time() is one load without a test
// (about 44 calls per L1D transaction on fermi vecadd).
inline const sc_core::sc_time* sim_now = &sc_core::sc_get_curr_simcontext()->time_stamp();
// Set by sim_time_ahead_by(), i.e. by every SystemC event notification from a block's process:
// the run-ahead asks the kernel again only then (ActivationScheduler::run()).
inline bool kernel_touched = false;
// The run-ahead steps to a due time below this bound (ps) without asking the kernel: its last
// answer (the kernel's next event, the owner's limit). sim_time_ahead_by() sets it to 0, so that a
// step tests one bound instead of the limit, the flag and the kernel's next event.
inline std::uint64_t ahead_bound = 0;
}  // namespace detail

// sc_core::sc_time_stamp() without its out-of-line library call, and without the out-of-line
// copy of sc_get_curr_simcontext() GCC often keeps (its first-use branch allocates): the same
// value, read several times per transaction and activation (docs/performance.md). Inside an
// activation the scheduler has run ahead of SystemC's kernel, the activation's time: blocks
// read the time through this function (or ClockDomain), never through sc_time_stamp().
inline const sc_core::sc_time& sim_time() {
  return *detail::sim_now;
}

// How far sim_time() is ahead of SystemC's kernel time (zero outside a run-ahead). A SystemC
// event notified from a block's process, with a delay or none, must add it: the kernel counts
// the delay from its own time (TLM-2.0's timing annotation, as in temporal decoupling). The call
// also tells the scheduler that the kernel's next event may have changed: between such calls the
// run-ahead reuses the kernel's last answer instead of asking it before every step.
inline sc_core::sc_time sim_time_ahead_by() {
  detail::kernel_touched = true;
  detail::ahead_bound = 0;
  return *detail::sim_now - sc_core::sc_get_curr_simcontext()->time_stamp();
}

}  // namespace locsim
