#include "tlm_components/ideal_network.h"

#include <stdexcept>
#include <string>

#include "tlm_components/route_extension.h"

namespace locsim {

IdealNetwork::IdealNetwork(sc_core::sc_module_name name, std::uint32_t sources,
                           std::uint32_t targets, SimContext& ctx)
    : Interconnect(name),
      sources_(sources),
      targets_(targets),
      to_target_(targets),
      to_source_(sources),
      requests_(ctx.stats.counter(this->name(), "core_net", "requests", "packets",
                                  "requests carried at no cost")),
      replies_(ctx.stats.counter(this->name(), "core_net", "replies", "packets",
                                 "replies carried at no cost")) {
  for (std::uint32_t i = 0; i < sources; ++i) {
    add_in_port(
        [this, i](Payload& gp) {
          const std::uint32_t t = target_of(gp);
          gpu_ext(gp).noc_target = -1;
          route_ext(gp).push(i);
          gpu_ext(gp).at(this->name());
          ++requests_;
          to_target_[t].push_back(&gp);
          forward(t);
          return true;
        },
        [this, i]() { deliver(i); });
  }
  for (std::uint32_t t = 0; t < targets; ++t) {
    add_out_port(
        [this](Payload& gp) {
          const std::uint32_t s = route_ext(gp).pop();
          gpu_ext(gp).at(this->name());
          ++replies_;
          to_source_[s].push_back(&gp);
          deliver(s);
          return true;
        },
        [this, t]() { forward(t); });
  }
}

std::uint32_t IdealNetwork::target_of(const Payload& gp) const {
  const std::int32_t t = gpu_ext(const_cast<Payload&>(gp)).noc_target;
  if (t < 0 || static_cast<std::uint32_t>(t) >= targets_)
    SC_REPORT_FATAL(name(), ("request without a valid target core: " + std::to_string(t)).c_str());
  return static_cast<std::uint32_t>(t);
}

void IdealNetwork::forward(std::uint32_t t) {
  while (!out_ports_[t]->busy() && !to_target_[t].empty()) {
    Payload* gp = to_target_[t].front();
    to_target_[t].pop_front();
    out_ports_[t]->send(*gp);
  }
}

void IdealNetwork::deliver(std::uint32_t s) {
  while (!in_ports_[s]->response_busy() && !to_source_[s].empty()) {
    Payload* gp = to_source_[s].front();
    to_source_[s].pop_front();
    in_ports_[s]->respond(*gp);
  }
}

void IdealNetwork::in_b_transport(int, Payload& gp, sc_core::sc_time& d) {
  out[target_of(gp)]->b_transport(gp, d);
}

unsigned int IdealNetwork::in_transport_dbg(int, Payload& gp) {
  return out[target_of(gp)]->transport_dbg(gp);
}

}  // namespace locsim
