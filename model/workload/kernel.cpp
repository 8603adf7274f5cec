#include "model/workload/kernel.h"

namespace locsim {

const char* to_string(WarpOp op) {
  switch (op) {
    case WarpOp::Compute:
      return "compute";
    case WarpOp::Load:
      return "load";
    case WarpOp::Store:
      return "store";
    case WarpOp::Atomic:
      return "atomic";
    case WarpOp::SharedLoad:
      return "shared_load";
    case WarpOp::SharedStore:
      return "shared_store";
    case WarpOp::Barrier:
      return "barrier";
    case WarpOp::Exit:
      return "exit";
  }
  return "?";
}

}  // namespace locsim
