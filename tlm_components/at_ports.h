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
  bool send(Payload& gp);
  tlm::tlm_sync_enum on_bw(Payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  Payload* held_response() const { return held_resp_; }
  // Takes a response that on_response refused: sends END_RESP.
  void accept_response();

 private:
  void handle(Payload& gp, const tlm::tlm_phase& phase);
  void peq_cb(Payload& gp, const tlm::tlm_phase& phase);
  FwFn fw_;
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

  tlm::tlm_sync_enum on_fw(Payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  Payload* held_request() const { return held_req_; }
  // Sends END_REQ for the held request.
  void accept_request();
  bool response_busy() const { return pending_resp_ != nullptr; }
  // Issues BEGIN_RESP now. Precondition: !response_busy(). Returns true if it completed at once.
  bool respond(Payload& gp);

 private:
  void handle(Payload& gp, const tlm::tlm_phase& phase);
  void peq_cb(Payload& gp, const tlm::tlm_phase& phase);
  BwFn bw_;
  RequestFn on_request_;
  ResponseDoneFn on_response_done_;
  Payload* held_req_ = nullptr;
  Payload* pending_resp_ = nullptr;
  tlm_utils::peq_with_cb_and_phase<TargetPort> peq_;
};

}  // namespace locsim
