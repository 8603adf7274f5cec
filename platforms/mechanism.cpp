#include "platforms/mechanism.h"

#include "platforms/mechanisms/icc_mechanism.h"
#include "platforms/mechanisms/ldesc_mechanism.h"
#include "platforms/mechanisms/mdb_mechanism.h"
#include "platforms/mechanisms/numa_mechanism.h"
#include "platforms/mechanisms/shared_l1_mechanism.h"

namespace locsim {

const std::vector<MechanismInfo>& mechanism_registry() {
  // Order = elaboration order = order of their statistics and report sections.
  static const std::vector<MechanismInfo> table = {
      icc_mechanism_info(),
      mdb_mechanism_info(),
      ldesc_mechanism_info(),
      numa_mechanism_info(),
      shared_l1_mechanism_info(),
  };
  return table;
}

}  // namespace locsim
