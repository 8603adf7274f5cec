#include "tlm_components/protocol_checker.h"

#include <sstream>

namespace locsim {

ProtocolChecker::ProtocolChecker(sc_core::sc_module_name name)
    : sc_module(name), target("target"), initiator("initiator") {
  target.register_nb_transport_fw(this, &ProtocolChecker::nb_transport_fw);
  target.register_b_transport(this, &ProtocolChecker::b_transport);
  target.register_transport_dbg(this, &ProtocolChecker::transport_dbg);
  initiator.register_nb_transport_bw(this, &ProtocolChecker::nb_transport_bw);
}

void ProtocolChecker::fail(const tlm::tlm_generic_payload& gp, const std::string& what) const {
  std::ostringstream os;
  os << name() << ": base-protocol violation on transaction @0x" << std::hex << gp.get_address()
     << ": " << what;
  SC_REPORT_ERROR("locsim/protocol", os.str().c_str());
}

// Applies one phase (as seen on the link, in either direction) to the transaction state machine.
void ProtocolChecker::on_phase(tlm::tlm_generic_payload& gp, const tlm::tlm_phase& phase,
                               bool forward) {
  auto it = txns_.find(&gp);
  if (phase == tlm::BEGIN_REQ) {
    if (!forward) fail(gp, "BEGIN_REQ on the backward path");
    if (it != txns_.end()) fail(gp, "BEGIN_REQ for a transaction already in progress");
    if (req_in_flight_) fail(gp, "BEGIN_REQ before END_REQ of the previous request");
    if (!gp.has_mm()) fail(gp, "payload without a memory manager");
    if (gp.has_mm() && gp.get_ref_count() == 0) fail(gp, "BEGIN_REQ with reference count 0");
    if (gp.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
      fail(gp, "BEGIN_REQ with response status already set");
    txns_[&gp] = Txn{State::RequestSent, gp.get_address(), gp.get_command()};
    req_in_flight_ = &gp;
    return;
  }
  if (it == txns_.end()) {
    fail(gp, std::string("phase ") + phase.get_name() + " for an unknown transaction");
    return;
  }
  Txn& t = it->second;
  if (gp.get_address() != t.address || gp.get_command() != t.command)
    fail(gp, "address or command changed during the transaction");
  if (phase == tlm::END_REQ) {
    if (forward) fail(gp, "END_REQ on the forward path");
    if (t.state != State::RequestSent) fail(gp, "END_REQ twice or after BEGIN_RESP");
    t.state = State::RequestAccepted;
    if (req_in_flight_ == &gp) req_in_flight_ = nullptr;
  } else if (phase == tlm::BEGIN_RESP) {
    if (forward) fail(gp, "BEGIN_RESP on the forward path");
    if (t.state == State::ResponseSent) fail(gp, "a second BEGIN_RESP");
    if (resp_in_flight_) fail(gp, "BEGIN_RESP before END_RESP of the previous response");
    if (gp.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
      fail(gp, "BEGIN_RESP with TLM_INCOMPLETE_RESPONSE");
    if (req_in_flight_ == &gp) req_in_flight_ = nullptr;  // implicit END_REQ
    t.state = State::ResponseSent;
    resp_in_flight_ = &gp;
  } else if (phase == tlm::END_RESP) {
    if (!forward) fail(gp, "END_RESP on the backward path");
    if (t.state != State::ResponseSent) fail(gp, "END_RESP without BEGIN_RESP");
    if (resp_in_flight_ == &gp) resp_in_flight_ = nullptr;
    txns_.erase(it);
    ++completed_;
  } else {
    fail(gp, std::string("unknown phase ") + phase.get_name());
  }
}

tlm::tlm_sync_enum ProtocolChecker::nb_transport_fw(tlm::tlm_generic_payload& gp,
                                                    tlm::tlm_phase& phase,
                                                    sc_core::sc_time& delay) {
  on_phase(gp, phase, true);
  tlm::tlm_phase sent = phase;
  tlm::tlm_sync_enum s = initiator->nb_transport_fw(gp, phase, delay);
  if (s == tlm::TLM_UPDATED) {
    if (phase == sent) fail(gp, "TLM_UPDATED without a phase change");
    on_phase(gp, phase, false);
  } else if (s == tlm::TLM_COMPLETED) {
    if (sent == tlm::BEGIN_REQ) {
      // Completed in the call: request and response both done.
      if (gp.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
        fail(gp, "TLM_COMPLETED with TLM_INCOMPLETE_RESPONSE");
      txns_.erase(&gp);
      if (req_in_flight_ == &gp) req_in_flight_ = nullptr;
      ++completed_;
    }
  } else if (phase != sent) {
    fail(gp, "TLM_ACCEPTED with a changed phase");
  }
  return s;
}

tlm::tlm_sync_enum ProtocolChecker::nb_transport_bw(tlm::tlm_generic_payload& gp,
                                                    tlm::tlm_phase& phase,
                                                    sc_core::sc_time& delay) {
  on_phase(gp, phase, false);
  tlm::tlm_phase sent = phase;
  tlm::tlm_sync_enum s = target->nb_transport_bw(gp, phase, delay);
  if (s == tlm::TLM_COMPLETED) {
    if (sent == tlm::BEGIN_RESP) {
      auto it = txns_.find(&gp);
      if (it != txns_.end()) txns_.erase(it);
      if (resp_in_flight_ == &gp) resp_in_flight_ = nullptr;
      ++completed_;
    }
  } else if (s == tlm::TLM_UPDATED) {
    if (phase == sent) fail(gp, "TLM_UPDATED without a phase change");
    on_phase(gp, phase, true);
  }
  return s;
}

void ProtocolChecker::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (req_in_flight_ == &gp || txns_.count(&gp)) fail(gp, "b_transport on a payload in flight");
  initiator->b_transport(gp, delay);
  if (gp.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
    fail(gp, "b_transport returned TLM_INCOMPLETE_RESPONSE");
}

unsigned int ProtocolChecker::transport_dbg(tlm::tlm_generic_payload& gp) {
  return initiator->transport_dbg(gp);
}

void ProtocolChecker::check_quiescent() const {
  if (!txns_.empty()) {
    std::ostringstream os;
    os << name() << ": " << txns_.size() << " transaction(s) never completed";
    SC_REPORT_ERROR("locsim/protocol", os.str().c_str());
  }
}

}  // namespace locsim
