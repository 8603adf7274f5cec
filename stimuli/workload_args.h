// Reading a workload's name=value parameters (WorkloadArgs) against its declared parameters, with
// strict parsing and one-line ConfigError messages that name the workload and the parameter.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "stimuli/workload_registry.h"

namespace locsim {

// Declared parameters, as in WorkloadInfo::params: name -> (default, description).
using WorkloadParamDecls = std::vector<std::pair<std::string, std::pair<std::string, std::string>>>;

// Throws ConfigError "workload 'w': unknown parameter 'p' (known: a, b)" for undeclared names.
void check_workload_args(const std::string& workload, const WorkloadParamDecls& decls,
                         const WorkloadArgs& args);

// Accepted values of an unsigned parameter; `why` (optional) explains a multiple_of constraint.
struct UIntRule {
  std::uint32_t min = 0;
  std::uint32_t max = 0xffffffffu;
  std::uint32_t multiple_of = 1;
  std::string why;
};

class WorkloadArgReader {
 public:
  // Checks the names (check_workload_args).
  WorkloadArgReader(std::string workload, WorkloadParamDecls decls, const WorkloadArgs& args);

  // The value as given, else the declared default. A name that is not declared is a
  // std::logic_error (a programming mistake in the workload).
  const std::string& text(const std::string& param) const;
  // Decimal or 0x-hex digits only, within the rule; otherwise ConfigError
  // "workload 'w': parameter 'p': bad value 'v' (must be ...)".
  std::uint32_t get_u32(const std::string& param, const UIntRule& rule) const;

 private:
  std::string workload_;
  WorkloadParamDecls decls_;
  WorkloadArgs args_;
};

}  // namespace locsim
