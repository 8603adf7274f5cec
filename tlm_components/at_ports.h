// Approximately-timed base-protocol endpoints (BEGIN_REQ/END_REQ/BEGIN_RESP/END_RESP). A module
// keeps one InitiatorPort per outgoing link and one TargetPort per incoming link and forwards its
// socket callbacks to them; the ports enforce the protocol rules (one request and one response in
// flight per link) and expose back-pressure to the module: a request is accepted (END_REQ) only
// when the module says so, a response only when the module can take it.
// Calls from locsim modules carry zero delay; a non-zero annotated delay from a foreign model is
// honoured through a payload event queue.
#pragma once
#include <tlm_utils/peq_with_cb_and_phase.h>

#include <cstring>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <type_traits>

namespace locsim {

using Payload = tlm::tlm_generic_payload;

// The ports' callbacks: a callable kept in place when it is small and trivially copyable (the
// modules' lambdas capturing `this` and an index), else shared on the heap; a call is one
// indirect call, without std::function's empty check and manager.
template <class Sig>
class PortCallback;
template <class R, class... A>
class PortCallback<R(A...)> {
 public:
  PortCallback() = default;
  PortCallback(std::nullptr_t) {}
  template <class F, class D = std::decay_t<F>,
            class = std::enable_if_t<!std::is_same_v<D, PortCallback> &&
                                     !std::is_same_v<D, std::nullptr_t>>>
  PortCallback(F&& f) {
    // An empty std::function or a null function pointer stays empty (tests false, as before).
    if constexpr (std::is_constructible_v<bool, const D&>)
      if (!static_cast<bool>(f)) return;
    if constexpr (sizeof(D) <= sizeof(buf_) && alignof(D) <= alignof(void*) &&
                  std::is_trivially_copyable_v<D> && std::is_trivially_destructible_v<D>) {
      ::new (static_cast<void*>(buf_)) D(std::forward<F>(f));
      call_ = [](void* b, A... a) -> R { return (*static_cast<D*>(b))(std::forward<A>(a)...); };
    } else {
      heap_ = std::make_shared<D>(std::forward<F>(f));
      call_ = [](void* b, A... a) -> R { return (**static_cast<D**>(b))(std::forward<A>(a)...); };
      D* d = static_cast<D*>(heap_.get());
      std::memcpy(buf_, &d, sizeof d);
    }
  }
  explicit operator bool() const { return call_ != nullptr; }
  R operator()(A... a) const { return call_(buf_, std::forward<A>(a)...); }

 private:
  alignas(void*) mutable unsigned char buf_[16] = {};
  R (*call_)(void*, A...) = nullptr;
  std::shared_ptr<void> heap_;
};

class TargetPort;

// Direct links between locsim ports. A module registers, during elaboration, each interface
// through which a bound socket reaches one of its ports, when that interface only forwards the
// call to the port unchanged (reachable_by()); at start of simulation the port on the other end
// looks up the interface its own socket is bound to (link()). A linked pair calls each other's
// zero-delay paths directly, past the sockets; any other model on the link (a ProtocolChecker,
// a foreign target or initiator) is not registered, so that link keeps the socket path.
class InitiatorPort {
 public:
  using FwFn = PortCallback<tlm::tlm_sync_enum(Payload&, tlm::tlm_phase&, sc_core::sc_time&)>;
  // A response arrived; return true to take it now, false to hold it (call accept_response later).
  using ResponseFn = PortCallback<bool(Payload&)>;
  // The request channel is free again (END_REQ received).
  using ReadyFn = PortCallback<void()>;

  explicit InitiatorPort(const char* name);
  void bind(FwFn fw, ResponseFn on_response, ReadyFn on_ready = nullptr);

  bool busy() const { return pending_req_ != nullptr; }
  // Issues BEGIN_REQ now. Precondition: !busy(). Returns true if the target accepted at once.
  // The zero-delay answers of locsim targets are handled here, inline in the caller; the rest
  // (annotated delay, BEGIN_RESP or TLM_COMPLETED at once) in sent().
  inline bool send(Payload& gp);
  tlm::tlm_sync_enum on_bw(Payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
    if (delay.value() == 0) {
      if (phase == tlm::BEGIN_RESP) return begin_resp(gp);
      if (phase == tlm::END_REQ) {
        end_req(gp);
        return tlm::TLM_ACCEPTED;
      }
    }
    return on_bw_other(gp, phase, delay);
  }
  Payload* held_response() const { return held_resp_; }
  // Takes a response that on_response refused: sends END_RESP.
  inline void accept_response();

  // `bw` (this port's module's backward interface) only forwards to this port.
  void reachable_by(const tlm::tlm_bw_transport_if<>* bw);
  // Links to the target port behind `fw` (the interface this port's socket is bound to), if one
  // registered it.
  void link(const tlm::tlm_fw_transport_if<>* fw);
  bool linked() const { return peer_ != nullptr; }
  ~InitiatorPort();

 private:
  // A linked TargetPort calls begin_resp() and end_req() directly (no phase or delay built).
  friend class TargetPort;
  tlm::tlm_sync_enum begin_resp(Payload& gp) {
    const bool implicit_end_req = pending_req_ == &gp;
    if (implicit_end_req) pending_req_ = nullptr;
    const bool took = on_response_(gp);
    if (!took) held_resp_ = &gp;
    if (implicit_end_req && on_ready_) on_ready_();
    return took ? tlm::TLM_COMPLETED : tlm::TLM_ACCEPTED;
  }
  void end_req([[maybe_unused]] Payload& gp) {
    sc_assert(pending_req_ == &gp);
    pending_req_ = nullptr;
    if (on_ready_) on_ready_();
  }
  bool sent(Payload& gp, tlm::tlm_sync_enum s, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  tlm::tlm_sync_enum on_bw_other(Payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  void handle(Payload& gp, const tlm::tlm_phase& phase);
  void peq_cb(Payload& gp, const tlm::tlm_phase& phase);
  FwFn fw_;
  TargetPort* peer_ = nullptr;
  ResponseFn on_response_;
  ReadyFn on_ready_;
  Payload* pending_req_ = nullptr;
  Payload* held_resp_ = nullptr;
  tlm_utils::peq_with_cb_and_phase<InitiatorPort> peq_;
};

class TargetPort {
 public:
  using BwFn = PortCallback<tlm::tlm_sync_enum(Payload&, tlm::tlm_phase&, sc_core::sc_time&)>;
  // BEGIN_REQ arrived; return true to accept now (END_REQ), false to hold it (accept_request
  // later).
  using RequestFn = PortCallback<bool(Payload&)>;
  // The response channel is free again.
  using ResponseDoneFn = PortCallback<void()>;

  explicit TargetPort(const char* name);
  void bind(BwFn bw, RequestFn on_request, ResponseDoneFn on_response_done = nullptr);

  // Zero-delay BEGIN_REQ and END_RESP are handled here, inline in the caller; an annotated delay
  // or an illegal phase in on_fw_other().
  tlm::tlm_sync_enum on_fw(Payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
    if (delay.value() == 0) {
      if (phase == tlm::BEGIN_REQ) {
        if (begin_req(gp)) {
          phase = tlm::END_REQ;
          return tlm::TLM_UPDATED;
        }
        return tlm::TLM_ACCEPTED;
      }
      if (phase == tlm::END_RESP) {
        end_resp(gp);
        return tlm::TLM_COMPLETED;
      }
    }
    return on_fw_other(gp, phase, delay);
  }
  Payload* held_request() const { return held_req_; }
  // Sends END_REQ for the held request.
  void accept_request() {
    sc_assert(held_req_ != nullptr);
    Payload* gp = held_req_;
    held_req_ = nullptr;
    if (peer_) {
      peer_->end_req(*gp);
      return;
    }
    tlm::tlm_phase phase = tlm::END_REQ;
    sc_core::sc_time delay;
    bw_(*gp, phase, delay);
  }
  bool response_busy() const { return pending_resp_ != nullptr; }
  // Issues BEGIN_RESP now. Precondition: !response_busy(). Returns true if it completed at once.
  bool respond(Payload& gp) {
    sc_assert(!response_busy());
    pending_resp_ = &gp;
    if (peer_) {
      if (peer_->begin_resp(gp) != tlm::TLM_COMPLETED) return false;
      pending_resp_ = nullptr;
      return true;
    }
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    sc_core::sc_time delay;
    const tlm::tlm_sync_enum s = bw_(gp, phase, delay);
    if (s == tlm::TLM_COMPLETED || (s == tlm::TLM_UPDATED && phase == tlm::END_RESP)) {
      pending_resp_ = nullptr;
      return true;
    }
    return false;
  }

  // `fw` (this port's module's forward interface) only forwards to this port.
  void reachable_by(const tlm::tlm_fw_transport_if<>* fw);
  // Links to the initiator port behind `bw` (the interface this port's socket is bound to).
  void link(const tlm::tlm_bw_transport_if<>* bw);
  bool linked() const { return peer_ != nullptr; }
  ~TargetPort();

 private:
  // A linked InitiatorPort calls begin_req() and end_resp() directly (no phase or delay built).
  friend class InitiatorPort;
  // A zero-delay BEGIN_REQ: true if taken at once (END_REQ), else held.
  bool begin_req(Payload& gp) {
    sc_assert(held_req_ == nullptr);
    if (on_request_(gp)) return true;
    held_req_ = &gp;
    return false;
  }
  void end_resp([[maybe_unused]] Payload& gp) {
    sc_assert(pending_resp_ == &gp);
    pending_resp_ = nullptr;
    if (on_response_done_) on_response_done_();
  }
  tlm::tlm_sync_enum on_fw_other(Payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  void handle(Payload& gp, const tlm::tlm_phase& phase);
  void peq_cb(Payload& gp, const tlm::tlm_phase& phase);
  BwFn bw_;
  InitiatorPort* peer_ = nullptr;
  RequestFn on_request_;
  ResponseDoneFn on_response_done_;
  Payload* held_req_ = nullptr;
  Payload* pending_resp_ = nullptr;
  tlm_utils::peq_with_cb_and_phase<TargetPort> peq_;
};

// Defined here, after TargetPort, to call a linked peer inline.
inline bool InitiatorPort::send(Payload& gp) {
  sc_assert(!busy());
  pending_req_ = &gp;
  if (peer_) {
    if (!peer_->begin_req(gp)) return false;
    pending_req_ = nullptr;
    return true;
  }
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay;  // zero
  const tlm::tlm_sync_enum s = fw_(gp, phase, delay);
  if (s == tlm::TLM_ACCEPTED) return false;
  if (s == tlm::TLM_UPDATED && phase == tlm::END_REQ && delay.value() == 0) {
    pending_req_ = nullptr;
    return true;
  }
  return sent(gp, s, phase, delay);
}

inline void InitiatorPort::accept_response() {
  sc_assert(held_resp_ != nullptr);
  Payload* gp = held_resp_;
  held_resp_ = nullptr;
  if (peer_) {
    peer_->end_resp(*gp);
    return;
  }
  tlm::tlm_phase phase = tlm::END_RESP;
  sc_core::sc_time delay;
  fw_(*gp, phase, delay);
}

}  // namespace locsim
