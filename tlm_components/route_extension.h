// The return path of a request through nested networks (module crossbar -> inter-module link ->
// crossbar): each interconnect pushes the ingress binding a request entered by when it accepts
// it, routes the reply back to the binding on top, and pops it when the reply leaves. Replies
// therefore never depend on who issued the request (SM id, cluster), only on the path it took.
// A member of every pooled payload (PooledPayload), so routing allocates nothing. RouteExtension
// itself is defined in gpu_extension.h, next to PooledPayload.
#pragma once
#include <cstdint>
#include <systemc>
#include <tlm>

#include "tlm_components/gpu_extension.h"

namespace locsim {

inline RouteExtension& route_ext(tlm::tlm_generic_payload& gp) {
  if (PooledPayload* p = as_pooled(gp)) return p->route;  // see as_pooled()
  RouteExtension* e = nullptr;
  gp.get_extension(e);
  sc_assert(e != nullptr);
  return *e;
}

}  // namespace locsim
