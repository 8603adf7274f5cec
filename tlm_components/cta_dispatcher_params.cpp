// Parameters of the CTA dispatcher (dispatcher.*), declared from DispatcherConfig's defaults.
#include "model/params.h"
#include "tlm_components/cta_dispatcher.h"

namespace locsim {

void declare_dispatcher_params(ParamRegistry& p) {
  using T = ParamType;
  const DispatcherConfig d;
  p.declare("dispatcher.policy", T::Enum, d.policy, "", "CTA scheduling policy (seed 001 §4)",
            cta_policy_choices());
  p.declare("dispatcher.launch_latency", T::UInt, std::to_string(d.launch_latency), "cycles",
            "free slot to next CTA launch");
  p.declare("dispatcher.kernel_gap", T::UInt, std::to_string(d.kernel_gap), "cycles",
            "idle cycles between kernels");
}

DispatcherConfig dispatcher_config_from_params(const ParamRegistry& p) {
  DispatcherConfig c;
  c.policy = p.get_string("dispatcher.policy");
  c.launch_latency = p.get_u32("dispatcher.launch_latency", 1);
  c.kernel_gap = p.get_u32("dispatcher.kernel_gap");
  c.clock_hz = p.get_frequency_hz("clock.core");
  return c;
}

}  // namespace locsim
