#include "tlm_components/at_ports.h"

#include "tlm_components/sim_time.h"

namespace locsim {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

InitiatorPort::InitiatorPort(const char* name)
    : peq_(sc_core::sc_gen_unique_name(name), this, &InitiatorPort::peq_cb) {}

void InitiatorPort::bind(FwFn fw, ResponseFn on_response, ReadyFn on_ready) {
  fw_ = std::move(fw);
  on_response_ = std::move(on_response);
  on_ready_ = std::move(on_ready);
}

bool InitiatorPort::send(Payload& gp) {
  sc_assert(!busy());
  pending_req_ = &gp;
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_time delay = SC_ZERO_TIME;
  tlm::tlm_sync_enum s = fw_(gp, phase, delay);
  if (s == tlm::TLM_ACCEPTED) return false;
  if (s == tlm::TLM_UPDATED) {
    if (delay != SC_ZERO_TIME) {
      peq_.notify(gp, phase, delay + sim_time_ahead_by());
      return false;
    }
    // END_REQ (or BEGIN_RESP, which implies END_REQ).
    if (phase == tlm::END_REQ) {
      pending_req_ = nullptr;
      return true;
    }
    handle(gp, phase);
    return !busy();
  }
  // TLM_COMPLETED: the target finished the transaction in the call (response implied).
  pending_req_ = nullptr;
  on_response_(gp);
  return true;
}

tlm::tlm_sync_enum InitiatorPort::on_bw(Payload& gp, tlm::tlm_phase& phase, sc_time& delay) {
  if (delay != SC_ZERO_TIME) {
    peq_.notify(gp, phase, delay + sim_time_ahead_by());
    return tlm::TLM_ACCEPTED;
  }
  if (phase == tlm::BEGIN_RESP) {
    bool implicit_end_req = pending_req_ == &gp;
    if (implicit_end_req) pending_req_ = nullptr;
    bool took = on_response_(gp);
    if (!took) held_resp_ = &gp;
    if (implicit_end_req && on_ready_) on_ready_();
    return took ? tlm::TLM_COMPLETED : tlm::TLM_ACCEPTED;
  }
  handle(gp, phase);
  return tlm::TLM_ACCEPTED;
}

void InitiatorPort::handle(Payload& gp, const tlm::tlm_phase& phase) {
  if (phase == tlm::END_REQ) {
    sc_assert(pending_req_ == &gp);
    pending_req_ = nullptr;
    if (on_ready_) on_ready_();
  } else if (phase == tlm::BEGIN_RESP) {
    tlm::tlm_phase p = phase;
    sc_time d = SC_ZERO_TIME;
    tlm::tlm_sync_enum s = on_bw(gp, p, d);
    if (s == tlm::TLM_COMPLETED) {
      // Response taken via the peq path: tell the target with END_RESP.
      tlm::tlm_phase e = tlm::END_RESP;
      sc_time z = SC_ZERO_TIME;
      fw_(gp, e, z);
    }
  } else {
    SC_REPORT_ERROR("locsim/at_ports", "initiator port received an illegal phase");
  }
}

void InitiatorPort::peq_cb(Payload& gp, const tlm::tlm_phase& phase) {
  handle(gp, phase);
}

void InitiatorPort::accept_response() {
  sc_assert(held_resp_ != nullptr);
  Payload* gp = held_resp_;
  held_resp_ = nullptr;
  tlm::tlm_phase phase = tlm::END_RESP;
  sc_time delay = SC_ZERO_TIME;
  fw_(*gp, phase, delay);
}

TargetPort::TargetPort(const char* name)
    : peq_(sc_core::sc_gen_unique_name(name), this, &TargetPort::peq_cb) {}

void TargetPort::bind(BwFn bw, RequestFn on_request, ResponseDoneFn on_response_done) {
  bw_ = std::move(bw);
  on_request_ = std::move(on_request);
  on_response_done_ = std::move(on_response_done);
}

tlm::tlm_sync_enum TargetPort::on_fw(Payload& gp, tlm::tlm_phase& phase, sc_time& delay) {
  if (delay != SC_ZERO_TIME) {
    peq_.notify(gp, phase, delay + sim_time_ahead_by());
    return tlm::TLM_ACCEPTED;
  }
  if (phase == tlm::BEGIN_REQ) {
    sc_assert(held_req_ == nullptr);
    if (on_request_(gp)) {
      phase = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    }
    held_req_ = &gp;
    return tlm::TLM_ACCEPTED;
  }
  handle(gp, phase);
  return tlm::TLM_COMPLETED;
}

void TargetPort::handle(Payload& gp, const tlm::tlm_phase& phase) {
  if (phase == tlm::BEGIN_REQ) {
    sc_assert(held_req_ == nullptr);
    if (on_request_(gp)) {
      tlm::tlm_phase e = tlm::END_REQ;
      sc_time z = SC_ZERO_TIME;
      bw_(gp, e, z);
    } else {
      held_req_ = &gp;
    }
  } else if (phase == tlm::END_RESP) {
    sc_assert(pending_resp_ == &gp);
    pending_resp_ = nullptr;
    if (on_response_done_) on_response_done_();
  } else {
    SC_REPORT_ERROR("locsim/at_ports", "target port received an illegal phase");
  }
}

void TargetPort::peq_cb(Payload& gp, const tlm::tlm_phase& phase) {
  handle(gp, phase);
}

void TargetPort::accept_request() {
  sc_assert(held_req_ != nullptr);
  Payload* gp = held_req_;
  held_req_ = nullptr;
  tlm::tlm_phase phase = tlm::END_REQ;
  sc_time delay = SC_ZERO_TIME;
  bw_(*gp, phase, delay);
}

bool TargetPort::respond(Payload& gp) {
  sc_assert(!response_busy());
  pending_resp_ = &gp;
  tlm::tlm_phase phase = tlm::BEGIN_RESP;
  sc_time delay = SC_ZERO_TIME;
  tlm::tlm_sync_enum s = bw_(gp, phase, delay);
  if (s == tlm::TLM_COMPLETED || (s == tlm::TLM_UPDATED && phase == tlm::END_RESP)) {
    pending_resp_ = nullptr;
    return true;
  }
  return false;
}

}  // namespace locsim
