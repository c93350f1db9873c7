//===- Topology.cpp - Target topologies for TOPO-001 ----------------------===//

#include "pkb/Checker.h"

#include <nlohmann/json.hpp>

#include <fstream>

namespace pkb {

support::Expected<Topology> resolveTopology(const std::string &Spec) {
  struct Builtin {
    const char *Name;
    unsigned Gpus;
    bool Multicast;
  };
  static const Builtin Builtins[] = {
      {"h200x2-nvlink", 2, false},
      {"h100x8-nvswitch", 8, true},
      {"h200x8-nvswitch", 8, true},
      {"generic", 8, false},
  };
  if (Spec.empty())
    return Topology{};
  for (const Builtin &B : Builtins)
    if (Spec == B.Name)
      return Topology{B.Name, B.Gpus, B.Multicast};
  std::ifstream In(Spec);
  if (!In)
    return support::fail("unknown topology '" + Spec +
                         "': not a built-in name (h200x2-nvlink, "
                         "h100x8-nvswitch, h200x8-nvswitch, generic) and not "
                         "a readable file");
  std::string Text((std::istreambuf_iterator<char>(In)),
                   std::istreambuf_iterator<char>());
  try {
    nlohmann::json J = nlohmann::json::parse(Text);
    Topology T;
    T.Name = J.at("name").get<std::string>();
    T.Gpus = J.at("gpus").get<unsigned>();
    T.Multicast = J.at("multicast").get<bool>();
    if (T.Gpus < 1)
      return support::fail(Spec + ":1: \"gpus\" must be at least 1");
    return T;
  } catch (const nlohmann::json::parse_error &E) {
    unsigned Line = 1;
    for (size_t I = 0; I < E.byte && I < Text.size(); ++I)
      Line += Text[I] == '\n';
    return support::fail(Spec + ":" + std::to_string(Line) +
                         ": invalid JSON: " + E.what());
  } catch (const nlohmann::json::exception &E) {
    return support::fail(Spec +
                         ":1: topology needs \"name\" (string), \"gpus\" "
                         "(integer) and \"multicast\" (boolean): " +
                         E.what());
  }
}

} // namespace pkb
