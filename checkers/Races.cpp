//===- Races.cpp - Helpers shared by the race checkers --------------------===//

#include "Races.h"

namespace pkb::chk {

static std::vector<unsigned> commonLoops(const Event &A, const Event &B) {
  std::vector<unsigned> C;
  for (size_t D = 0; D < A.Loops.size() && D < B.Loops.size(); ++D) {
    if (A.Loops[D] != B.Loops[D])
      break;
    C.push_back(A.Loops[D]);
  }
  return C;
}

void addIterWitness(Analysis &A, size_t I, size_t J, WitnessSpec &W) {
  for (unsigned L : commonLoops(A.ev(I), A.ev(J))) {
    W.push_back({"iter" + std::to_string(L) + "#1", A.iterVar(L, 1)});
    W.push_back({"iter" + std::to_string(L) + "#2", A.iterVar(L, 2)});
  }
}

size_t laterEvent(Analysis &A, size_t I, size_t J,
                  const std::map<std::string, std::string> &Witness) {
  for (unsigned L : commonLoops(A.ev(I), A.ev(J))) {
    auto I1 = Witness.find("iter" + std::to_string(L) + "#1");
    auto I2 = Witness.find("iter" + std::to_string(L) + "#2");
    if (I1 == Witness.end() || I2 == Witness.end())
      break;
    long long V1 = std::atoll(I1->second.c_str()),
              V2 = std::atoll(I2->second.c_str());
    if (V1 != V2)
      return V1 > V2 ? I : J;
  }
  return std::max(I, J);
}

} // namespace pkb::chk
