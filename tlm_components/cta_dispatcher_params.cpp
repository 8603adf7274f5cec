// Parameters of the CTA dispatcher (dispatcher.*), declared from DispatcherConfig's defaults.
#include <algorithm>
#include <stdexcept>

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
  // Each policy's own parameters, from the policy table: dispatcher.<policy>.<parameter>.
  for (const CtaPolicyInfo& info : cta_policy_registry())
    for (const CtaPolicyParam& prm : info.params)
      p.declare("dispatcher." + info.name + "." + prm.name, T::String, prm.default_value, "",
                prm.description + " (policy " + info.name + ")");
}

DispatcherConfig dispatcher_config_from_params(const ParamRegistry& p) {
  DispatcherConfig c;
  c.policy = p.get_string("dispatcher.policy");
  // The chosen policy (by name or alias) gets its own parameters; building it once here checks
  // them, so a bad value fails before elaboration with the key named.
  for (const CtaPolicyInfo& info : cta_policy_registry()) {
    const bool chosen = info.name == c.policy || std::find(info.aliases.begin(), info.aliases.end(),
                                                           c.policy) != info.aliases.end();
    if (!chosen) continue;
    for (const CtaPolicyParam& prm : info.params) {
      const std::string key = "dispatcher." + info.name + "." + prm.name;
      c.policy_args[prm.name] = p.get_string(key);
      try {
        make_cta_policy(c.policy, c.policy_args);
      } catch (const std::invalid_argument& e) {
        throw ConfigError("key '" + key + "': " + e.what());
      }
    }
  }
  c.launch_latency = p.get_u32("dispatcher.launch_latency", 1);
  c.kernel_gap = p.get_u32("dispatcher.kernel_gap");
  c.clock_hz = p.get_frequency_hz("clock.core");
  return c;
}

}  // namespace locsim
