// The timing shell every cache-like block shares (the L1D and the L2 sub-partition): one target
// socket from above and one initiator socket below, speaking the AT base protocol through
// TargetPort / InitiatorPort; at most one request accepted per cycle, at clock edges; a request
// the block's policy refuses is held (END_REQ withheld, so the sender stalls) and retried at the
// next edge something may have freed, and the cycles it waited are reported by cause; responses
// leave from a cycle-ordered queue, at most one per cycle, when the link above is free.
// A derived block implements process() (its policy decision) and what happens below.
#pragma once
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <cstdint>
#include <systemc>
#include <tlm>
#include <vector>

#include "tlm_components/activation_scheduler.h"
#include "tlm_components/at_ports.h"
#include "tlm_components/clock_domain.h"

namespace locsim {

class CacheShell : public sc_core::sc_module {
  // The shell's own ends of its two links: a socket bound to `upper` or `lower` directly calls
  // these (one virtual call into the port helper) instead of the simple sockets' callback
  // helpers (a check and a call through a member-function pointer each). Sockets that bind by
  // export (hierarchical or multi-socket binding) still reach the helpers, which call the same
  // functions.
  struct UpperFw final : tlm::tlm_fw_transport_if<> {
    explicit UpperFw(CacheShell& s) : s_(s) {}
    tlm::tlm_sync_enum nb_transport_fw(Payload& gp, tlm::tlm_phase& ph,
                                       sc_core::sc_time& d) override {
      return s_.up_.on_fw(gp, ph, d);
    }
    void b_transport(Payload& gp, sc_core::sc_time& d) override { s_.b_transport(gp, d); }
    bool get_direct_mem_ptr(Payload&, tlm::tlm_dmi& dmi) override {
      // No DMI, answered as simple_target_socket does without a registered callback.
      dmi.allow_read_write();
      dmi.set_start_address(0);
      dmi.set_end_address(~sc_dt::uint64{0});
      return false;
    }
    unsigned int transport_dbg(Payload& gp) override { return s_.transport_dbg(gp); }
    CacheShell& s_;
  };
  struct LowerBw final : tlm::tlm_bw_transport_if<> {
    explicit LowerBw(CacheShell& s) : s_(s) {}
    tlm::tlm_sync_enum nb_transport_bw(Payload& gp, tlm::tlm_phase& ph,
                                       sc_core::sc_time& d) override {
      return s_.down_.on_bw(gp, ph, d);
    }
    void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
    CacheShell& s_;
  };
  struct UpperSocket : tlm_utils::simple_target_socket<CacheShell> {
    UpperSocket(const char* n, UpperFw& fw) : simple_target_socket<CacheShell>(n), fw_(fw) {}
    tlm::tlm_fw_transport_if<>& get_base_interface() override { return fw_; }
    const tlm::tlm_fw_transport_if<>& get_base_interface() const override { return fw_; }
    UpperFw& fw_;
  };
  struct LowerSocket : tlm_utils::simple_initiator_socket<CacheShell> {
    LowerSocket(const char* n, LowerBw& bw) : simple_initiator_socket<CacheShell>(n), bw_(bw) {}
    tlm::tlm_bw_transport_if<>& get_base_interface() override { return bw_; }
    const tlm::tlm_bw_transport_if<>& get_base_interface() const override { return bw_; }
    LowerBw& bw_;
  };

 public:
  UpperSocket upper;  // from the block above
  LowerSocket lower;  // to the block below

  // Whether the link above / below is direct (a locsim port at the other end, at_ports.h).
  bool upper_linked() const { return up_.linked(); }
  bool lower_linked() const { return down_.linked(); }

  // The state every request, retry and response reads, declared together ahead of the ports
  // (whose callbacks and event queues take about 600 bytes each): a few host cache lines per
  // run instead of one for nearly every member.
 private:
  // The responses in (cycle, queueing) order, as TimedQueue keeps them, on a ring kept sorted by
  // insertion from the back: most responses are queued in cycle order (an append); one that is
  // due before responses already queued moves past them.
  class ResponseQueue {
   public:
    bool empty() const { return head_ == tail_; }
    Cycle next_cycle() const { return buf_[head_ & mask_].when; }
    bool ready(Cycle now) const { return !empty() && next_cycle() <= now; }
    Payload* pop() { return buf_[head_++ & mask_].gp; }
    // Returns whether `gp` is now the head. The usual append (room left, due no earlier than
    // the tail) inline; a growth or a move past later responses in push_sorted().
    [[gnu::always_inline]] bool push(Cycle when, Payload* gp) {
      const std::size_t t = tail_;
      if (t - head_ != buf_.size() && (t == head_ || buf_[(t - 1) & mask_].when <= when)) {
        buf_[t & mask_] = Item{when, gp};
        tail_ = t + 1;
        return t == head_;
      }
      return push_sorted(when, gp);
    }
    [[gnu::noinline]] bool push_sorted(Cycle when, Payload* gp) {
      if (tail_ - head_ == buf_.size()) grow();
      std::size_t i = tail_++;
      for (; i != head_ && buf_[(i - 1) & mask_].when > when; --i)
        buf_[i & mask_] = buf_[(i - 1) & mask_];
      buf_[i & mask_] = Item{when, gp};
      return i == head_;
    }

   private:
    struct Item {
      Cycle when;
      Payload* gp;
    };
    void grow() {
      std::vector<Item> b(buf_.empty() ? 16 : 2 * buf_.size());
      const std::size_t n = tail_ - head_;
      for (std::size_t i = 0; i < n; ++i) b[i] = buf_[(head_ + i) & mask_];
      buf_.swap(b);
      head_ = 0;
      tail_ = n;
      mask_ = buf_.size() - 1;
    }
    std::vector<Item> buf_;
    std::size_t head_ = 0, tail_ = 0, mask_ = 0;
  };
  int held_cause_ = 0;
  Cycle last_accept_ = ~Cycle{0};
  Cycle last_response_ = ~Cycle{0};
  Cycle retry_cycle_ = 0, resp_cycle_ = 0;  // the pending runs' cycles (ask_retry/ask_response)
  Cycle held_since_ = 0;
  ResponseQueue responses_;

 protected:
  // A request was accepted and process() asked for accepted() (see below).
  bool call_accepted_ = false;
  ClockDomain clk_;
  // name(), kept here for the payloads' GpuExtension::at() (the same pointer: the object's name
  // never changes): name() reads it from the sc_object, a host cache line of its own per call.
  const char* const at_name_ = name();
  // The block's process() and stalled(), called through these by the shell's runs: a virtual
  // call reads the object's vtable pointer, a host cache line of its own, each time. They
  // dispatch unless the block points them at its own overrides (direct_calls()).
  using ProcessFn = int (*)(CacheShell&, Payload&, Cycle);
  using StalledFn = void (*)(CacheShell&, int, std::uint64_t);
  ProcessFn process_fn_ = [](CacheShell& s, Payload& gp, Cycle now) { return s.process(gp, now); };
  StalledFn stalled_fn_ = [](CacheShell& s, int cause, std::uint64_t n) { s.stalled(cause, n); };

 private:
  Activation retry_ev_, resp_ev_;

 protected:
  // `upper_name` / `lower_name` name the sockets (e.g. "cpu" / "mem" for the L1); `l2` places
  // the shell's processes in the L2's same-time stages (activation_scheduler.h).
  CacheShell(sc_core::sc_module_name name, double clock_hz, const char* upper_name,
             const char* lower_name, bool l2);

  // The block's decision for a request at cycle `now`: 0 if it was taken, else the cause (a
  // block-specific code) for which it must wait.
  virtual int process(Payload& gp, Cycle now) = 0;
  // A held request waited `cycles` cycles for `cause` (a non-zero code from process()).
  virtual void stalled(int cause, std::uint64_t cycles) = 0;
  // One more attempt at a held request at `now` with result `result` (0: taken): the previous
  // attempt's refusal (`cause` since `since`) held it in every cycle up to now, which is charged
  // to stalled(); then `cause` and `since` describe this attempt.
  void note_attempt(int& cause, Cycle& since, int result, Cycle now) {
    if (cause != 0 && now > since) stalled_fn_(*this, cause, now - since);
    cause = result;
    since = now;
  }
  // A request was accepted (after process() took it): called only when process() set
  // `call_accepted_` (reset before the call), so that a block without an observer costs no call.
  virtual void accepted(Payload&) {}
  // A response arrived from below: return true to take it now.
  virtual bool on_response_from_below(Payload& gp) = 0;
  // The link below is free again: send what waits.
  virtual void send_down() = 0;
  virtual void b_transport(Payload& gp, sc_core::sc_time& d) { lower->b_transport(gp, d); }
  virtual unsigned int transport_dbg(Payload& gp) { return lower->transport_dbg(gp); }

  // Queues a response to leave at cycle `when` (at the earliest the cycle after this one) and
  // wakes the response process; queue_response() + wake_responses() do the same in two steps.
  // A response queued behind the head needs no wake-up: the head's run (or the END_RESP that a
  // busy link above still owes) comes no later than the one it would ask for.
  void respond_at(Cycle when, Payload& gp) {
    if (queue_response(when, gp)) wake_responses();
  }
  // Returns whether the response went to the head of the queue.
  [[gnu::always_inline]] bool queue_response(Cycle when, Payload& gp) {
    return responses_.push(when, &gp);
  }
  void wake_responses() { wake_responses(clk_.next_edge_cycle()); }
  // Cycle c's edge in ps for a wake-up at the next edge or a later one (c >=
  // clk_.next_edge_cycle(), as for every wake-up of the shell and its blocks): ClockDomain::ps_at()
  // without its read of the time and max with now.
  std::uint64_t edge_ps(Cycle c) const { return c * clk_.period().value(); }
  // The same when the caller knows clk_.next_edge_cycle() (`next_edge`): no division.
  void wake_responses(Cycle next_edge) {
    // At the first response's cycle, and not before the next cycle. (Waking at the next cycle
    // to sleep on to that one changed nothing but the event order: c76c871 made it canonical.)
    ask_response(std::max(responses_.next_cycle(), next_edge + 1));
  }
  // Something below freed: retry a held request from cycle `when` on (the next edge's cycle or
  // a later one).
  void retry_at(Cycle when) {
    // Not in a cycle that already accepted a request (retry_method would only move on a cycle).
    if (up_.held_request()) ask_retry(std::max(when, after(last_accept_)));
  }
  bool holding() const { return up_.held_request() != nullptr; }
  // Block D's process(), stalled(), on_response_from_below() and send_down() called without the
  // virtual dispatch by the shell's runs and the lower link's callbacks. D's constructor calls
  // it (D befriends CacheShell).
  template <class D>
  void direct_calls() {
    process_fn_ = [](CacheShell& s, Payload& gp, Cycle now) {
      return static_cast<D&>(s).D::process(gp, now);
    };
    stalled_fn_ = [](CacheShell& s, int cause, std::uint64_t n) {
      static_cast<D&>(s).D::stalled(cause, n);
    };
    D* d = static_cast<D*>(this);
    down_.bind([this](Payload& gp, tlm::tlm_phase& ph,
                      sc_core::sc_time& t) { return lower->nb_transport_fw(gp, ph, t); },
               [d](Payload& gp) { return d->D::on_response_from_below(gp); },
               [d]() { d->D::send_down(); });
  }
  // A run of `ev` at cycle c's edge (c >= clk_.next_edge_cycle()), unless one is asked for no
  // later; `run_cycle` keeps the cycle of the run asked for, which the run takes as its time
  // without reading the time, a division and an edge test. Every run of `ev` must be asked for
  // here.
  void ask(Activation& ev, Cycle& run_cycle, Cycle c) {
    const std::uint64_t t = edge_ps(c);
    if (t < ev.pending()) {
      run_cycle = c;
      ev.notify_at(t);
    }
  }

  TargetPort up_;
  InitiatorPort down_;

 private:
  void end_of_elaboration() override;
  void start_of_simulation() override;
  bool on_request(Payload& gp);
  void retry_method();
  // After a request was accepted in cycle `now` (an edge): a retry asked for this cycle (e.g. by
  // process() freeing an entry) would only find the cycle taken; with a held request it asks for
  // the next cycle, else it does nothing. Do that now instead of at the retry (one activation
  // fewer, the same runs after it).
  void drop_same_cycle_retry(Cycle now) {
    if (retry_ev_.pending() == edge_ps(now)) move_same_cycle_retry(now);  // now: an edge
  }
  void move_same_cycle_retry(Cycle now);
  // A retry / response run at cycle c's edge (c >= clk_.next_edge_cycle()), unless one is asked
  // for no later. Every run of the two processes is asked for here, and the run's cycle kept:
  // the run takes it as its time, without reading the time, a division and an edge test.
  void ask_retry(Cycle c) { ask(retry_ev_, retry_cycle_, c); }
  void ask_response(Cycle c) { ask(resp_ev_, resp_cycle_, c); }
  tlm::tlm_bw_transport_if<>* upper_bw() {
    return static_cast<tlm::tlm_target_socket<32>&>(upper).operator->();
  }
  void response_method();
  tlm::tlm_sync_enum nb_fw(Payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    return up_.on_fw(gp, ph, d);
  }
  tlm::tlm_sync_enum nb_bw(Payload& gp, tlm::tlm_phase& ph, sc_core::sc_time& d) {
    return down_.on_bw(gp, ph, d);
  }
  void b_transport_cb(Payload& gp, sc_core::sc_time& d) { b_transport(gp, d); }
  unsigned int transport_dbg_cb(Payload& gp) { return transport_dbg(gp); }

  UpperFw upper_fw_{*this};
  LowerBw lower_bw_{*this};
  // The cycle after `last` (last_accept_ or last_response_), 0 if there was none.
  static Cycle after(Cycle last) { return last + 1; }  // ~0 + 1 wraps to 0
};

}  // namespace locsim
