#include "model/workload/locality_descriptor.h"

namespace locsim {

const char* to_string(LocalityType t) {
  switch (t) {
    case LocalityType::InterThread:
      return "INTER-THREAD";
    case LocalityType::IntraThread:
      return "INTRA-THREAD";
    case LocalityType::NoReuse:
      return "NO-REUSE";
  }
  return "?";
}

const char* to_string(SharingType s) {
  switch (s) {
    case SharingType::None:
      return "NONE";
    case SharingType::CoAccessed:
      return "COACCESSED";
    case SharingType::Nearby:
      return "NEARBY";
  }
  return "?";
}

const char* to_string(AccessPattern p) {
  return p == AccessPattern::Regular ? "REGULAR" : "IRREGULAR";
}

std::string describe(const LocalityDescriptor& d) {
  std::string s = to_string(d.type);
  if (d.type == LocalityType::InterThread && d.semantics.sharing != SharingType::None)
    s += std::string(" (") + to_string(d.semantics.sharing) + ", " +
         to_string(d.semantics.pattern) + ")";
  return s;
}

}  // namespace locsim
