// A stackless coroutine for writing a warp's instruction stream as straight-line code that mirrors
// the CUDA kernel (loops and all), yet produces one instruction per next() call: lazy, no
// per-warp instruction list. Same technique as Boost.Asio's stackless coroutines (a switch on the
// resume point, jumping back into the loop body).
//
//   bool next(WarpInst& in) override {
//     LOCSIM_CO_BEGIN;
//     for (t_ = 0; t_ < tiles_; ++t_) {
//       LOCSIM_CO_YIELD(emit_load(in, ...));
//       LOCSIM_CO_YIELD(emit_barrier(in, ...));
//     }
//     LOCSIM_CO_YIELD(emit_exit(in, ...));
//     LOCSIM_CO_END;
//   }
//
// Rules: state that must survive a yield (loop counters) lives in members, not locals (the
// compiler rejects a jump over a local's initialisation); at most one LOCSIM_CO_YIELD per source
// line (a duplicate is a compile error: two identical case labels).
#pragma once

#include "model/workload/kernel.h"

namespace locsim {

class CoroutineStream : public WarpStream {
 protected:
  // 0: not started; -1: finished; otherwise the source line of the yield to resume after.
  int co_resume_ = 0;
};

}  // namespace locsim

#define LOCSIM_CO_BEGIN \
  switch (co_resume_) { \
    case 0:
// Runs the statement (which fills the instruction) and returns true; next() resumes after it.
#define LOCSIM_CO_YIELD(...) \
  do {                       \
    co_resume_ = __LINE__;   \
    __VA_ARGS__;             \
    return true;             \
    case __LINE__:;          \
  } while (0)
#define LOCSIM_CO_END \
  }                   \
  co_resume_ = -1;    \
  return false
