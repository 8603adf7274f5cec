// ParamRegistry and the value parsers: accepted forms, each class of bad input, and the one-line
// error messages the CLI relies on.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include "model/params.h"

using namespace locsim;

namespace {

// The ConfigError message of f(), or "" if it did not throw.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

bool one_line(const std::string& s) {
  return !s.empty() && s.find('\n') == std::string::npos && s.find('\r') == std::string::npos;
}

std::string tmp_path(const std::string& name) {
  return "/tmp/locsim_test_params_" + std::to_string(getpid()) + "_" + name;
}

// A small registry with one parameter of each type.
ParamRegistry sample() {
  ParamRegistry p;
  p.declare("l1d.size", ParamType::Bytes, "16KiB", "bytes", "L1 capacity");
  p.declare("l1d.ways", ParamType::UInt, "4", "ways", "associativity");
  p.declare("l1d.enabled", ParamType::Bool, "true", "", "L1 on");
  p.declare("l1d.indexing", ParamType::Enum, "linear", "", "index function", {"linear", "xor"});
  p.declare("l2.size", ParamType::Bytes, "768KiB", "bytes", "L2 capacity");
  p.declare("clock.core", ParamType::Frequency, "1.4GHz", "Hz", "core clock");
  p.declare("sim.offset", ParamType::Int, "-3", "cycles", "signed");
  p.declare("sim.scale", ParamType::Double, "0.5", "", "a double");
  p.declare("sim.period", ParamType::Time, "10ns", "ps", "a time");
  p.declare("platform.name", ParamType::String, "custom", "", "name");
  return p;
}

}  // namespace

TEST_CASE("parse_bytes: plain integers and binary suffixes", "[params]") {
  CHECK(parse_bytes("0") == 0);
  CHECK(parse_bytes("4096") == 4096);
  CHECK(parse_bytes("128B") == 128);
  CHECK(parse_bytes("16KiB") == 16384);
  CHECK(parse_bytes("16KB") == 16384);  // KB is binary too
  CHECK(parse_bytes("16K") == 16384);
  CHECK(parse_bytes("16kib") == 16384);
  CHECK(parse_bytes("16 KiB") == 16384);
  CHECK(parse_bytes("3MiB") == 3u * 1024 * 1024);
  CHECK(parse_bytes("3mb") == 3u * 1024 * 1024);
  CHECK(parse_bytes("3M") == 3u * 1024 * 1024);
  CHECK(parse_bytes("1GiB") == 1ull << 30);
  CHECK(parse_bytes("2GB") == 2ull << 30);
  CHECK(parse_bytes("2g") == 2ull << 30);
  CHECK(parse_bytes("1.5KiB") == 1536);
  CHECK(parse_bytes("4.5MiB") == 4608u * 1024);
  CHECK(parse_bytes("0.25KiB") == 256);
  CHECK(parse_bytes("2.000B") == 2);
  CHECK(parse_bytes(" 32KiB ") == 32768);
  CHECK(parse_bytes("18446744073709551615") == std::numeric_limits<std::uint64_t>::max());
  CHECK(parse_bytes("16777215.9990234375GiB") == (1ull << 54) - (1ull << 20));
  CHECK(parse_bytes("17179869183GiB") == 0ull - (1ull << 30));  // 2^64 - 2^30
  CHECK(parse_bytes("17179869183.5GiB") == 0ull - (1ull << 29));
}

TEST_CASE("parse_bytes: rejects bad input with the accepted forms", "[params]") {
  for (const char* bad : {"", "  ", "abc", "-1", "-4KiB", "+4", "16 KiBx", "16XB", "16KiB7", "1.",
                          ".5KiB", "1.5B", "0.1KiB", "1.3MiB", "18446744073709551616",
                          "17179869184GiB", "99999999999999999999999KiB", "0x10", "1e3"}) {
    INFO("input: '" << bad << "'");
    const std::string msg = error_of([&] { parse_bytes(bad); });
    CHECK_THAT(msg, Catch::Contains("expected a size such as 4096, 16KiB, 3MiB"));
    CHECK(one_line(msg));
  }
  CHECK_THAT(error_of([] { parse_bytes("abc"); }),
             Catch::Equals("bad value 'abc' (expected a size such as 4096, 16KiB, 3MiB)"));
  CHECK_THAT(error_of([] { parse_bytes("-1"); }), Catch::Contains("negative"));
  CHECK_THAT(error_of([] { parse_bytes("1.5B"); }), Catch::Contains("not a whole number"));
  CHECK_THAT(error_of([] { parse_bytes("17179869184GiB"); }), Catch::Contains("too large"));
  CHECK_THAT(error_of([] { parse_bytes("16QB"); }), Catch::Contains("unknown unit 'QB'"));
  CHECK_THAT(error_of([] { parse_bytes("1\n2"); }), Catch::Contains("'1\\n2'"));
}

TEST_CASE("parse_frequency_hz: units and plain Hz", "[params]") {
  CHECK(parse_frequency_hz("1.4GHz") == Approx(1.4e9));
  CHECK(parse_frequency_hz("1.4ghz") == Approx(1.4e9));
  CHECK(parse_frequency_hz("924MHz") == Approx(924e6));
  CHECK(parse_frequency_hz("924 mhz") == Approx(924e6));
  CHECK(parse_frequency_hz("32kHz") == Approx(32e3));
  CHECK(parse_frequency_hz("5000Hz") == Approx(5000));
  CHECK(parse_frequency_hz("700000000") == Approx(7e8));
  CHECK(parse_frequency_hz("1.2e9") == Approx(1.2e9));
  CHECK(parse_frequency_hz("1400000000.0") == Approx(1.4e9));
}

TEST_CASE("parse_frequency_hz: rejects zero, negatives, junk and unknown units", "[params]") {
  for (const char* bad : {"", "0", "0GHz", "0.0MHz", "-1GHz", "GHz", "1.4THz", "1.4 GHz x", "fast",
                          "inf", "nan", "1e", "1e400GHz", "0x10", "1.4GHzz"}) {
    INFO("input: '" << bad << "'");
    const std::string msg = error_of([&] { parse_frequency_hz(bad); });
    CHECK_THAT(msg, Catch::Contains("expected a frequency"));
    CHECK(one_line(msg));
  }
  CHECK_THAT(error_of([] { parse_frequency_hz("0MHz"); }),
             Catch::Contains("must be greater than 0"));
  CHECK_THAT(error_of([] { parse_frequency_hz("1e400"); }), Catch::Contains("too large"));
}

TEST_CASE("parse_time_ps: units, exact picoseconds", "[params]") {
  CHECK(parse_time_ps("500ps") == 500);
  CHECK(parse_time_ps("10ns") == 10000);
  CHECK(parse_time_ps("10 NS") == 10000);
  CHECK(parse_time_ps("1us") == 1000000);
  CHECK(parse_time_ps("2ms") == 2000000000ull);
  CHECK(parse_time_ps("3s") == 3000000000000ull);
  CHECK(parse_time_ps("1.5ns") == 1500);
  CHECK(parse_time_ps("0.001ns") == 1);
  CHECK(parse_time_ps("0.000000000001s") == 1);
  CHECK(parse_time_ps("0") == 0);
  CHECK(parse_time_ps("0ns") == 0);
}

TEST_CASE("parse_time_ps: rejects fractions of a ps, missing units and junk", "[params]") {
  for (const char* bad : {"", "10", "1.5ps", "0.0001ns", "-1ns", "10 hours", "ns", "10nss", "1.ns",
                          "18446744073709551616ps", "18446744073709552s"}) {
    INFO("input: '" << bad << "'");
    const std::string msg = error_of([&] { parse_time_ps(bad); });
    CHECK_THAT(msg, Catch::Contains("expected a time"));
    CHECK(one_line(msg));
  }
  CHECK_THAT(error_of([] { parse_time_ps("1.5ps"); }), Catch::Contains("picoseconds"));
  CHECK_THAT(error_of([] { parse_time_ps("10"); }), Catch::Contains("missing unit"));
  CHECK_THAT(error_of([] { parse_time_ps("18446744073709552s"); }), Catch::Contains("too large"));
}

TEST_CASE("parse_bool: every spelling, any case", "[params]") {
  for (const char* t : {"true", "TRUE", "True", "1", "yes", "YES", "on", "On", " true "})
    CHECK(parse_bool(t));
  for (const char* f : {"false", "False", "0", "no", "NO", "off", "OFF"})
    CHECK_FALSE(parse_bool(f));
  for (const char* bad : {"", "2", "tru", "yess", "enabled", "-1", "y"}) {
    INFO("input: '" << bad << "'");
    CHECK_THAT(error_of([&] { parse_bool(bad); }), Catch::Contains("expected true/false"));
  }
}

TEST_CASE("to_string(ParamType) names every type", "[params]") {
  CHECK(std::string(to_string(ParamType::Bool)) == "bool");
  CHECK(std::string(to_string(ParamType::UInt)) == "uint");
  CHECK(std::string(to_string(ParamType::Int)) == "int");
  CHECK(std::string(to_string(ParamType::Double)) == "double");
  CHECK(std::string(to_string(ParamType::String)) == "string");
  CHECK(std::string(to_string(ParamType::Enum)) == "enum");
  CHECK(std::string(to_string(ParamType::Bytes)) == "bytes");
  CHECK(std::string(to_string(ParamType::Frequency)) == "frequency");
  CHECK(std::string(to_string(ParamType::Time)) == "time");
}

TEST_CASE("ParamRegistry: declared defaults are parsed and readable", "[params]") {
  ParamRegistry p = sample();
  CHECK(p.has("l1d.size"));
  CHECK_FALSE(p.has("l1d"));
  CHECK_FALSE(p.has("l1d.sise"));
  CHECK(p.get_bytes("l1d.size") == 16384);
  CHECK(p.get_uint("l1d.ways") == 4);
  CHECK(p.get_bool("l1d.enabled"));
  CHECK(p.get_string("l1d.indexing") == "linear");
  CHECK(p.get_frequency_hz("clock.core") == Approx(1.4e9));
  CHECK(p.get_int("sim.offset") == -3);
  CHECK(p.get_double("sim.scale") == 0.5);
  CHECK(p.get_time_ps("sim.period") == 10000);
  CHECK(p.get_string("platform.name") == "custom");
  const ParamInfo& i = p.info("l1d.size");
  CHECK(i.name == "l1d.size");
  CHECK(i.type == ParamType::Bytes);
  CHECK(i.default_text == "16KiB");
  CHECK(i.value_text == "16KiB");
  CHECK(i.unit == "bytes");
  CHECK(i.desc == "L1 capacity");
  CHECK(i.source == "default");
  CHECK(p.info("l1d.indexing").choices == std::vector<std::string>{"linear", "xor"});
}

TEST_CASE("ParamRegistry: declaration mistakes are logic errors", "[params]") {
  ParamRegistry p = sample();
  CHECK_THROWS_AS(p.declare("l1d.size", ParamType::Bytes, "1KiB", "", ""), std::logic_error);
  CHECK_THROWS_AS(p.declare("x.bytes", ParamType::Bytes, "lots", "", ""), std::logic_error);
  CHECK_THROWS_AS(p.declare("x.uint", ParamType::UInt, "-1", "", ""), std::logic_error);
  CHECK_THROWS_AS(p.declare("x.enum", ParamType::Enum, "c", "", "", {"a", "b"}), std::logic_error);
  CHECK_THROWS_AS(p.declare("x.enum2", ParamType::Enum, "a", "", ""), std::logic_error);
  CHECK_THROWS_AS(p.declare("x.str", ParamType::String, "a", "", "", {"a"}), std::logic_error);
  CHECK_THROWS_AS(p.declare("", ParamType::UInt, "1", "", ""), std::logic_error);
  CHECK_THROWS_AS(p.declare("x..y", ParamType::UInt, "1", "", ""), std::logic_error);
  CHECK_THROWS_AS(p.declare("x.", ParamType::UInt, "1", "", ""), std::logic_error);
  CHECK_THROWS_AS(p.declare("x y", ParamType::UInt, "1", "", ""), std::logic_error);
  CHECK_THROWS_AS(p.declare("x.time", ParamType::Time, "10", "", ""), std::logic_error);
  // Failed declarations leave nothing behind, and the original is untouched.
  CHECK_FALSE(p.has("x.bytes"));
  CHECK_FALSE(p.has("x.time"));
  CHECK(p.get_bytes("l1d.size") == 16384);
  CHECK_NOTHROW(p.declare("x.ok", ParamType::UInt, "1", "", ""));
  CHECK(p.has("x.ok"));
}

TEST_CASE("ParamRegistry: getters check the type", "[params]") {
  ParamRegistry p = sample();
  CHECK_THROWS_AS(p.get_uint("l1d.size"), std::logic_error);
  CHECK_THROWS_AS(p.get_bytes("l1d.ways"), std::logic_error);
  CHECK_THROWS_AS(p.get_bool("l1d.ways"), std::logic_error);
  CHECK_THROWS_AS(p.get_int("l1d.ways"), std::logic_error);
  CHECK_THROWS_AS(p.get_double("clock.core"), std::logic_error);
  CHECK_THROWS_AS(p.get_frequency_hz("sim.scale"), std::logic_error);
  CHECK_THROWS_AS(p.get_time_ps("l1d.ways"), std::logic_error);
  CHECK_THROWS_AS(p.get_string("l1d.ways"), std::logic_error);
  CHECK_THROWS_AS(p.get_u32("l1d.size"), std::logic_error);
  CHECK_THROWS_AS(p.get_uint("no.such"), std::logic_error);
  CHECK_THROWS_AS(p.info("no.such"), std::logic_error);
}

TEST_CASE("ParamRegistry: set parses, normalises and records the source", "[params]") {
  ParamRegistry p = sample();
  p.set("l1d.size", "32KiB", "--set");
  CHECK(p.get_bytes("l1d.size") == 32768);
  CHECK(p.info("l1d.size").value_text == "32KiB");
  CHECK(p.info("l1d.size").source == "--set");
  CHECK(p.info("l1d.size").default_text == "16KiB");

  p.set("l1d.ways", "0x10", "test");
  CHECK(p.get_uint("l1d.ways") == 16);
  CHECK(p.info("l1d.ways").value_text == "16");
  CHECK(p.info("l1d.ways").source == "test");

  p.set("l1d.enabled", "OFF", "a.json");
  CHECK_FALSE(p.get_bool("l1d.enabled"));
  CHECK(p.info("l1d.enabled").value_text == "false");

  p.set("l1d.indexing", "XOR", "x");
  CHECK(p.get_string("l1d.indexing") == "xor");

  p.set("sim.offset", "+42", "x");
  CHECK(p.get_int("sim.offset") == 42);
  CHECK(p.info("sim.offset").value_text == "42");
  p.set("sim.offset", "-9223372036854775808", "x");
  CHECK(p.get_int("sim.offset") == std::numeric_limits<std::int64_t>::min());
  p.set("sim.offset", "9223372036854775807", "x");
  CHECK(p.get_int("sim.offset") == std::numeric_limits<std::int64_t>::max());

  p.set("sim.scale", "2.5e-3", "x");
  CHECK(p.get_double("sim.scale") == 2.5e-3);
  p.set("clock.core", "924MHz", "x");
  CHECK(p.get_frequency_hz("clock.core") == Approx(924e6));
  p.set("sim.period", "1.5us", "x");
  CHECK(p.get_time_ps("sim.period") == 1500000);
  p.set("platform.name", " my gpu ", "x");
  CHECK(p.get_string("platform.name") == " my gpu ");  // free text is kept verbatim
  p.set("l1d.ways", "18446744073709551615", "x");
  CHECK(p.get_uint("l1d.ways") == std::numeric_limits<std::uint64_t>::max());
}

TEST_CASE("ParamRegistry: ill-typed values name the key and keep the old value", "[params]") {
  ParamRegistry p = sample();
  const std::string msg = error_of([&] { p.set("l1d.size", "abc", "--set"); });
  CHECK_THAT(msg, Catch::Contains("key 'l1d.size': bad value 'abc' (expected a size such as "
                                  "4096, 16KiB, 3MiB)"));
  CHECK_THAT(msg, Catch::StartsWith("--set: "));
  CHECK(one_line(msg));
  CHECK(p.get_bytes("l1d.size") == 16384);
  CHECK(p.info("l1d.size").source == "default");

  struct Case {
    const char* key;
    const char* value;
    const char* expect;
  };
  for (const Case& c : {Case{"l1d.ways", "-1", "negative"},
                        Case{"l1d.ways", "4 ways", "unsigned"},
                        Case{"l1d.ways", "18446744073709551616", "too large"},
                        Case{"l1d.ways", "0x", "unsigned"},
                        Case{"l1d.ways", "0xg", "unsigned"},
                        Case{"l1d.ways", "", "empty"},
                        Case{"l1d.ways", "1.0", "unsigned"},
                        Case{"sim.offset", "9223372036854775808", "range"},
                        Case{"sim.offset", "-9223372036854775809", "range"},
                        Case{"sim.offset", "1-", "signed"},
                        Case{"sim.offset", "-", "signed"},
                        Case{"sim.offset", "0x10", "signed"},
                        Case{"sim.scale", "1.5x", "finite"},
                        Case{"sim.scale", "nan", "finite"},
                        Case{"sim.scale", "inf", "finite"},
                        Case{"sim.scale", "1e999", "finite"},
                        Case{"sim.scale", "", "finite"},
                        Case{"l1d.enabled", "maybe", "true/false"},
                        Case{"l1d.indexing", "hash", "one of: linear, xor"},
                        Case{"clock.core", "0Hz", "greater than 0"},
                        Case{"sim.period", "1.5ps", "picoseconds"}}) {
    INFO(c.key << " = '" << c.value << "'");
    const std::string m = error_of([&] { p.set(c.key, c.value, "src"); });
    CHECK_THAT(m, Catch::StartsWith(std::string("src: key '") + c.key + "': bad value '"));
    CHECK_THAT(m, Catch::Contains(c.expect));
    CHECK(one_line(m));
  }
  CHECK(p.get_uint("l1d.ways") == 4);
  CHECK(p.get_int("sim.offset") == -3);
  CHECK(p.get_string("l1d.indexing") == "linear");
}

TEST_CASE("ParamRegistry: unknown keys, with a suggestion when one is close", "[params]") {
  ParamRegistry p = sample();
  std::string m = error_of([&] { p.set("l1d.sise", "32KiB", "--set"); });
  CHECK(m == "--set: unknown key 'l1d.sise' (did you mean 'l1d.size'?)");
  // Edit distance 2 (a transposition) still suggests; 3 does not.
  m = error_of([&] { p.set("l1d.szie", "32KiB", "--set"); });
  CHECK(m == "--set: unknown key 'l1d.szie' (did you mean 'l1d.size'?)");
  m = error_of([&] { p.set("l1d.xxxe", "32KiB", "--set"); });
  CHECK(m == "--set: unknown key 'l1d.xxxe'");
  // Same last component, far in edit distance.
  m = error_of([&] { p.set("cache.ways", "4", "--set"); });
  CHECK(m == "--set: unknown key 'cache.ways' (did you mean 'l1d.ways'?)");
  // Case differences count as close.
  m = error_of([&] { p.set("L1D.SIZE", "4", "--set"); });
  CHECK_THAT(m, Catch::Contains("did you mean 'l1d.size'?"));
  // Nothing close: no suggestion.
  m = error_of([&] { p.set("watchdog.limit", "4", "--set"); });
  CHECK(m == "--set: unknown key 'watchdog.limit'");
  // A prefix of declared names is not itself a key.
  m = error_of([&] { p.set("l1d", "4", "x"); });
  CHECK_THAT(m, Catch::Contains("unknown key 'l1d'"));
  CHECK(one_line(error_of([&] { p.set("a\nb", "4", "x"); })));
}

TEST_CASE("ParamRegistry: set_assignment splits key=value at the first '='", "[params]") {
  ParamRegistry p = sample();
  p.set_assignment("l1d.size=64KiB");
  CHECK(p.get_bytes("l1d.size") == 65536);
  CHECK(p.info("l1d.size").source == "--set");
  p.set_assignment("platform.name=a=b");
  CHECK(p.get_string("platform.name") == "a=b");
  p.set_assignment("platform.name=");
  CHECK(p.get_string("platform.name") == "");
  CHECK_THAT(error_of([&] { p.set_assignment("l1d.size"); }), Catch::Contains("key=value"));
  CHECK_THAT(error_of([&] { p.set_assignment("=4"); }), Catch::Contains("key=value"));
  CHECK_THAT(error_of([&] { p.set_assignment("l1d.sise=4"); }),
             Catch::Contains("unknown key 'l1d.sise'"));
  CHECK_THAT(error_of([&] { p.set_assignment("l1d.size=lots"); }),
             Catch::Contains("key 'l1d.size'"));
}

TEST_CASE("ParamRegistry: JSON objects flatten to dotted names", "[params][json]") {
  ParamRegistry p = sample();
  p.load_json_text(R"({
    "l1d": {"size": "32KiB", "ways": 8, "enabled": false, "indexing": "xor"},
    "l2.size": 1048576,
    "clock": {"core": 1200000000},
    "sim": {"offset": -7, "scale": 0.25, "period": "2ns"},
    "platform": {"name": "volta"}
  })",
                   "volta.json");
  CHECK(p.get_bytes("l1d.size") == 32768);
  CHECK(p.info("l1d.size").value_text == "32KiB");
  CHECK(p.get_uint("l1d.ways") == 8);
  CHECK_FALSE(p.get_bool("l1d.enabled"));
  CHECK(p.get_string("l1d.indexing") == "xor");
  CHECK(p.get_bytes("l2.size") == 1048576);
  CHECK(p.get_frequency_hz("clock.core") == Approx(1.2e9));
  CHECK(p.get_int("sim.offset") == -7);
  CHECK(p.get_double("sim.scale") == 0.25);
  CHECK(p.get_time_ps("sim.period") == 2000);
  CHECK(p.get_string("platform.name") == "volta");
  for (const char* k : {"l1d.size", "l1d.ways", "l2.size", "sim.period", "platform.name"})
    CHECK(p.info(k).source == "volta.json");
  // Keys the file does not mention keep their origin.
  p.load_json_text(R"({"l1d": {"ways": "2"}})", "b.json");
  CHECK(p.info("l1d.ways").source == "b.json");
  CHECK(p.info("l1d.size").source == "volta.json");
  CHECK(p.get_uint("l1d.ways") == 2);
  // Later sources override earlier ones.
  p.set("l1d.size", "8KiB", "--set");
  CHECK(p.get_bytes("l1d.size") == 8192);
  CHECK(p.info("l1d.size").source == "--set");
  // Booleans also accept strings and 0/1; an empty object changes nothing.
  p.load_json_text(R"({"l1d": {"enabled": "yes"}})", "c.json");
  CHECK(p.get_bool("l1d.enabled"));
  p.load_json_text(R"({"l1d": {"enabled": 0}})", "c.json");
  CHECK_FALSE(p.get_bool("l1d.enabled"));
  CHECK_NOTHROW(p.load_json_text("{}", "empty.json"));
}

TEST_CASE("ParamRegistry: JSON errors name the file and the key", "[params][json]") {
  struct Case {
    const char* json;
    const char* key;
    const char* expect;
  };
  for (const Case& c : {
           Case{R"({"l1d": {"size": "32KiB", "colour": 3}})", "'l1d.colour'", "unknown key"},
           Case{R"({"l1d": {"size": [1, 2]}})", "'l1d.size'", "JSON array is not allowed"},
           Case{R"({"l1d": {"size": null}})", "'l1d.size'", "JSON null is not allowed"},
           Case{R"({"l1d": {"size": true}})", "'l1d.size'", "JSON boolean is not allowed"},
           Case{R"({"l1d": {"size": {}}})", "'l1d.size'", "JSON object is not allowed"},
           Case{R"({"l1d": {"size": -1}})", "'l1d.size'", "negative"},
           Case{R"({"l1d": {"size": 1.5}})", "'l1d.size'", "not a whole number"},
           Case{R"({"l1d": {"size": "lots"}})", "'l1d.size'", "expected a size"},
           Case{R"({"l1d": {"ways": -4}})", "'l1d.ways'", "negative"},
           Case{R"({"l1d": {"ways": 4.5}})", "'l1d.ways'", "unsigned"},
           Case{R"({"l1d": {"ways": [4]}})", "'l1d.ways'", "array"},
           Case{R"({"l1d": {"enabled": 2}})", "'l1d.enabled'", "true/false"},
           Case{R"({"l1d": {"indexing": 1}})", "'l1d.indexing'", "one of: linear, xor"},
           Case{R"({"clock": {"core": 0}})", "'clock.core'", "greater than 0"},
           Case{R"({"clock": {"core": false}})", "'clock.core'", "boolean"},
           Case{R"({"sim": {"period": 10}})", "'sim.period'", "missing unit"},
           Case{R"({"l1d.size": "1KiB", "l1d": {"size": "2KiB"}})", "'l1d.size'", "more than once"},
       }) {
    INFO(c.json);
    ParamRegistry p = sample();
    const std::string m = error_of([&] { p.load_json_text(c.json, "/cfg/bad.json"); });
    CHECK_THAT(m, Catch::StartsWith("/cfg/bad.json: "));
    CHECK_THAT(m, Catch::Contains(c.key));
    CHECK_THAT(m, Catch::Contains(c.expect));
    CHECK(one_line(m));
  }
}

TEST_CASE("ParamRegistry: a failing JSON document changes nothing", "[params][json]") {
  ParamRegistry p = sample();
  // Keys are applied in sorted order, so l1d.size is set before l1d.ways fails.
  CHECK_THROWS_AS(p.load_json_text(R"({"l1d": {"size": "64KiB", "ways": "many"}})", "x.json"),
                  ConfigError);
  CHECK(p.get_bytes("l1d.size") == 16384);
  CHECK(p.info("l1d.size").source == "default");
  CHECK(p.get_uint("l1d.ways") == 4);
}

TEST_CASE("ParamRegistry: JSON syntax and shape errors are one line", "[params][json]") {
  ParamRegistry p = sample();
  // FILE:LINE:COLUMN, without the JSON library's "[json.exception.parse_error.101]" prefix.
  std::string m = error_of([&] { p.load_json_text("{\n  \"l1d\": {\"size\": \n", "/cfg/x.json"); });
  CHECK_THAT(m, Catch::StartsWith("/cfg/x.json:3:1: JSON syntax error: "));
  CHECK_THAT(m, !Catch::Contains("json.exception"));
  CHECK(one_line(m));
  m = error_of([&] { p.load_json_text("{\"a\": 1,}", "/cfg/x.json"); });
  CHECK_THAT(m, Catch::StartsWith("/cfg/x.json:1:9: JSON syntax error: "));
  m = error_of([&] { p.load_json_text("{\n\"l1d\": {\"size\": 1e400}}", "/cfg/x.json"); });
  CHECK(m == "/cfg/x.json:2:17: number out of range '1e400'");
  m = error_of([&] { p.load_json_text("", "/cfg/x.json"); });
  CHECK_THAT(m, Catch::Contains("JSON syntax error"));
  m = error_of([&] { p.load_json_text("[1, 2]", "/cfg/x.json"); });
  CHECK_THAT(m, Catch::Contains("/cfg/x.json"));
  CHECK_THAT(m, Catch::Contains("JSON object"));
  m = error_of([&] { p.load_json_text("\"l1d.size\"", "/cfg/x.json"); });
  CHECK_THAT(m, Catch::Contains("JSON object"));
}

TEST_CASE("ParamRegistry: load_json_file reads files and reports unreadable ones",
          "[params][json]") {
  ParamRegistry p = sample();
  const std::string good = tmp_path("good.json"), bad = tmp_path("bad.json");
  std::ofstream(good) << R"({"l1d": {"size": "32KiB"}, "gpu_unused": {}})"
                      << "\n";
  std::ofstream(bad) << R"({"l1d": {"size": "32KiB", "colour": 3}})";
  // "gpu_unused": {} is an empty object for an undeclared key: still an unknown key.
  std::string m = error_of([&] { p.load_json_file(good); });
  std::remove(good.c_str());
  CHECK_THAT(m, Catch::Contains("unknown key 'gpu_unused'"));
  CHECK_THAT(m, Catch::Contains(good));

  std::ofstream(good) << R"({"l1d": {"size": "32KiB"}})";
  CHECK_NOTHROW(p.load_json_file(good));
  std::remove(good.c_str());
  CHECK(p.get_bytes("l1d.size") == 32768);
  CHECK(p.info("l1d.size").source == good);
  CHECK(p.info("l1d.size").value_text == "32KiB");

  m = error_of([&] { p.load_json_file(bad); });
  std::remove(bad.c_str());
  CHECK(m == bad + ": unknown key 'l1d.colour'");

  m = error_of([&] { p.load_json_file("/nonexistent/locsim.json"); });
  CHECK(m == "cannot read config file '/nonexistent/locsim.json'");
  m = error_of([&] { p.load_json_file("/tmp"); });
  CHECK_THAT(m, Catch::Contains("'/tmp'"));
  CHECK(one_line(m));
}

TEST_CASE("ParamRegistry: get_u32 range checks", "[params]") {
  ParamRegistry p = sample();
  CHECK(p.get_u32("l1d.ways") == 4);
  CHECK(p.get_u32("l1d.ways", 4, 4) == 4);
  CHECK(p.get_u32("l1d.ways", 1, 1024) == 4);
  std::string m = error_of([&] { p.get_u32("l1d.ways", 8, 16); });
  CHECK_THAT(m, Catch::Contains("key 'l1d.ways'"));
  CHECK_THAT(m, Catch::Contains("4 is out of range [8, 16]"));
  CHECK_THAT(m, Catch::Contains("default"));
  p.set("l1d.ways", "17", "cfg.json");
  m = error_of([&] { p.get_u32("l1d.ways", 8, 16); });
  CHECK_THAT(m, Catch::Contains("17 is out of range [8, 16]"));
  CHECK_THAT(m, Catch::Contains("cfg.json"));
  p.set("l1d.ways", "4294967295", "x");
  CHECK(p.get_u32("l1d.ways") == 4294967295u);
  p.set("l1d.ways", "4294967296", "x");
  CHECK_THAT(error_of([&] { p.get_u32("l1d.ways"); }), Catch::Contains("4294967296"));
  p.set("l1d.ways", "0", "x");
  CHECK_THAT(error_of([&] { p.get_u32("l1d.ways", 1); }), Catch::Contains("out of range"));
  CHECK_THROWS_AS(p.get_u32("l1d.ways", 5, 4), std::logic_error);
}

TEST_CASE("ParamRegistry: list() is sorted by name and complete", "[params]") {
  ParamRegistry p;
  p.declare("zeta.a", ParamType::UInt, "1", "", "");
  p.declare("alpha.b", ParamType::UInt, "2", "", "");
  p.declare("alpha.a", ParamType::UInt, "3", "", "");
  p.declare("mid", ParamType::Bool, "no", "", "");
  p.set("alpha.a", "9", "--set");
  const auto l = p.list();
  REQUIRE(l.size() == 4);
  CHECK(l[0].name == "alpha.a");
  CHECK(l[1].name == "alpha.b");
  CHECK(l[2].name == "mid");
  CHECK(l[3].name == "zeta.a");
  CHECK(l[0].value_text == "9");
  CHECK(l[0].default_text == "3");
  CHECK(l[0].source == "--set");
  CHECK(l[1].source == "default");
  CHECK(l[2].value_text == "false");  // normalised
  CHECK(l[2].default_text == "no");   // as written
  CHECK(ParamRegistry().list().empty());
}

TEST_CASE("ParamRegistry: get_bytes_u32 rejects sizes that do not fit 32 bits", "[params]") {
  ParamRegistry p = sample();
  CHECK(p.get_bytes_u32("l1d.size") == p.get_bytes("l1d.size"));
  p.set("l1d.size", "4GiB", "x");  // 2^32: one more than the largest 32-bit value
  std::string m = error_of([&] { p.get_bytes_u32("l1d.size"); });
  CHECK_THAT(m, Catch::Contains("key 'l1d.size'"));
  CHECK_THAT(m, Catch::Contains("4294967296 bytes is out of range"));
  p.set("l1d.size", "64", "x");
  CHECK_THAT(error_of([&] { p.get_bytes_u32("l1d.size", 128); }), Catch::Contains("out of range"));
  CHECK_THROWS_AS(p.get_bytes_u32("l1d.ways"), std::logic_error);  // not a Bytes parameter
}

TEST_CASE("Default texts written from struct defaults parse back exactly", "[params]") {
  CHECK(bytes_text(128) == "128");
  CHECK(bytes_text(49152) == "48KiB");
  CHECK(bytes_text(786432) == "768KiB");
  CHECK(bytes_text(4u << 20) == "4MiB");
  CHECK(bytes_text(1000) == "1000");
  CHECK(frequency_text(1.4e9) == "1.4GHz");
  CHECK(frequency_text(924e6) == "924MHz");
  CHECK(frequency_text(700e6) == "700MHz");
  CHECK(frequency_text(1e9) == "1GHz");
  for (double hz : {1.4e9, 924e6, 1251e6, 877.5e6, 1.2345e9, 33e3})
    CHECK(parse_frequency_hz(frequency_text(hz)) == hz);
  for (std::uint64_t b : {1ull, 32ull, 1536ull, 3ull << 20, 96ull << 10, 12345ull})
    CHECK(parse_bytes(bytes_text(b)) == b);
}

TEST_CASE("Clock frequencies outside 1kHz..100GHz are rejected with the limit", "[params]") {
  // A period that rounds to 0 ps divided by zero; one that overflows hung with a silent watchdog.
  for (const char* bad : {"1e30Hz", "2THz", "101GHz", "5e-8Hz", "999Hz", "0.5kHz"})
    CHECK_THROWS_AS(parse_frequency_hz(bad), ConfigError);
  CHECK_THROWS_WITH(parse_frequency_hz("1e30Hz"), Catch::Contains("100GHz"));
  CHECK_THROWS_WITH(parse_frequency_hz("5e-8Hz"), Catch::Contains("1kHz"));
  CHECK(parse_frequency_hz("100GHz") == 100e9);
  CHECK(parse_frequency_hz("1kHz") == 1e3);
  ParamRegistry p;
  p.declare("clock.core", ParamType::Frequency, "1.4GHz", "Hz", "core clock");
  CHECK_THROWS_WITH(p.load_json_text(R"({"clock": {"core": "1e30Hz"}})", "cfg.json"),
                    Catch::Contains("cfg.json") && Catch::Contains("clock.core"));
}

TEST_CASE("Hostile config JSON: deep nesting, repeated keys, huge numbers name the file",
          "[params]") {
  ParamRegistry p;
  p.declare("l1d.size", ParamType::Bytes, "16KiB", "bytes", "L1 size");
  p.declare("l1d.ways", ParamType::UInt, "4", "ways", "L1 ways");
  // 50,000 levels used to overflow the stack while flattening the keys.
  std::string deep;
  for (int i = 0; i < 50000; ++i) deep += "{\"a\":";
  deep += "1";
  for (int i = 0; i < 50000; ++i) deep += "}";
  CHECK_THROWS_WITH(p.load_json_text(deep, "deep.json"),
                    Catch::StartsWith("deep.json:1:81: objects nested deeper"));
  // A repeated key in one object used to take its last value silently.
  CHECK_THROWS_WITH(p.load_json_text(R"({"l1d": {"ways": 2, "ways": 8}})", "dup.json"),
                    "dup.json:1:21: key 'ways' appears twice in one object");
  // FILE:LINE:COLUMN of the repeated key, not fooled by keys in other objects or in strings.
  CHECK_THROWS_WITH(
      p.load_json_text("{\"platform\": {\"name\": \"x\", \"description\": \"ways: 1\"},\n"
                       " \"l1d\": {\"ways\": 2,\n  \"size\": \"8KiB\",\n  \"ways\": 8}}",
                       "dup.json"),
      "dup.json:4:3: key 'ways' appears twice in one object");
  CHECK(p.get_uint("l1d.ways") == 4);  // all or nothing: nothing was set
  // The same name in two different objects is fine.
  p.declare("l2.ways", ParamType::UInt, "16", "ways", "L2 ways");
  CHECK_NOTHROW(p.load_json_text(R"({"l1d": {"ways": 2}, "l2": {"ways": 8}})", "ok.json"));
  CHECK(p.get_uint("l1d.ways") == 2);
  CHECK(p.get_uint("l2.ways") == 8);
  // 1e400 used to escape as a JSON-library exception without the file's name.
  CHECK_THROWS_WITH(p.load_json_text(R"({"l1d": {"ways": 1e400}})", "big.json"),
                    Catch::Contains("big.json"));
}

TEST_CASE("parse_decimal_u32: digits only, 32-bit range", "[params]") {
  CHECK(parse_decimal_u32("0") == 0u);
  CHECK(parse_decimal_u32("4294967295") == 4294967295u);
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "4294967296", "99999999999", "1e3", "0x10"})
    CHECK_FALSE(parse_decimal_u32(bad).has_value());
}
