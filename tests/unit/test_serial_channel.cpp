// The bandwidth model of an inter-module link direction (model/serial_channel.h).
#include <catch2/catch.hpp>

#include "model/serial_channel.h"

using namespace locsim;

TEST_CASE("serial channel: packets serialise at the bandwidth, idle time is not banked", "[link]") {
  SerialChannel c(32.0);        // 32 bytes per cycle
  CHECK(c.send(0, 128) == 4);   // wire busy 0..4
  CHECK(c.send(0, 128) == 8);   // queued behind the first
  CHECK(c.send(20, 8) == 21);   // idle from 8 to 20: starts at 20, a quarter cycle, rounded up
  CHECK(c.send(20, 24) == 21);  // the rest of that cycle
  CHECK(c.busy_cycles() == Approx(9.0));
  CHECK(c.bytes() == 288);
  CHECK(c.packets() == 4);
}

TEST_CASE("serial channel: a fractional bandwidth accumulates without drift", "[link]") {
  SerialChannel c(137.14);  // 192 GB/s at 1.4 GHz
  Cycle last = 0;
  for (int i = 0; i < 1000; ++i) last = c.send(0, 136);
  // 136,000 bytes at 137.14 B/cycle = 991.7 cycles
  CHECK(last >= 991);
  CHECK(last <= 993);
  CHECK_THROWS_WITH(SerialChannel(0.0), Catch::Contains("bandwidth"));
}
