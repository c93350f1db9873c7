//===- Registry.cpp - The list of checkers and check selection ------------===//

#include "Checks.h"

#include <sstream>

namespace pkb {

const std::vector<std::unique_ptr<Checker>> &allCheckers() {
  static const std::vector<std::unique_ptr<Checker>> All = [] {
    std::vector<std::unique_ptr<Checker>> V;
    V.push_back(chk::makeBar001());
    V.push_back(chk::makeBar002());
    V.push_back(chk::makeBar003());
    V.push_back(chk::makeBar004());
    V.push_back(chk::makeBar005());
    V.push_back(chk::makeHost001());
    V.push_back(chk::makeOrd001());
    V.push_back(chk::makeOrd002());
    V.push_back(chk::makeOrd003());
    V.push_back(chk::makeOrd004());
    V.push_back(chk::makeOrd005());
    V.push_back(chk::makePart001());
    V.push_back(chk::makePart002());
    V.push_back(chk::makePart003());
    V.push_back(chk::makePart004());
    V.push_back(chk::makeRace001());
    V.push_back(chk::makeRace002());
    V.push_back(chk::makeRace003());
    V.push_back(chk::makeSig001());
    V.push_back(chk::makeSig002());
    V.push_back(chk::makeTopo001());
    return V;
  }();
  return All;
}

/// Glob match with '*' (any run) and '?' (one character), case-sensitive
/// on IDs after upper-casing the pattern.
static bool globMatch(const char *P, const char *S) {
  if (*P == '\0')
    return *S == '\0';
  if (*P == '*')
    return globMatch(P + 1, S) || (*S && globMatch(P, S + 1));
  if (*S && (*P == '?' || *P == *S))
    return globMatch(P + 1, S + 1);
  return false;
}

/// The patterns of a --checks value, trimmed and upper-cased.
static std::vector<std::string> splitGlobs(const std::string &Globs) {
  std::vector<std::string> Items;
  std::stringstream SS(Globs);
  std::string Item;
  while (std::getline(SS, Item, ',')) {
    size_t B = Item.find_first_not_of(" \t");
    size_t E = Item.find_last_not_of(" \t");
    if (B == std::string::npos)
      continue;
    Item = Item.substr(B, E - B + 1);
    for (char &C : Item)
      C = static_cast<char>(toupper(static_cast<unsigned char>(C)));
    Items.push_back(Item);
  }
  return Items;
}

support::Expected<void> validateCheckGlobs(const std::string &Globs) {
  for (const std::string &I : splitGlobs(Globs)) {
    std::string Pat = I[0] == '-' ? I.substr(1) : I;
    bool Matched = false;
    for (const auto &C : allCheckers())
      Matched |= globMatch(Pat.c_str(), C->info().Id.c_str());
    if (!Matched)
      return support::fail("--checks: '" + I +
                           "' matches no check ID (pkbcheck checks lists "
                           "them)");
  }
  for (const auto &C : allCheckers())
    if (isCheckEnabled(C->info().Id, Globs))
      return {};
  return support::fail("--checks '" + Globs +
                       "' disables every checker; nothing would be checked");
}

bool isCheckEnabled(const std::string &Id, const std::string &Globs) {
  std::vector<std::string> Items = splitGlobs(Globs);
  bool AnyPositive = false;
  for (const std::string &I : Items)
    if (I[0] != '-')
      AnyPositive = true;
  bool Enabled = !AnyPositive;
  for (const std::string &I : Items) {
    bool Neg = I[0] == '-';
    std::string Pat = Neg ? I.substr(1) : I;
    if (globMatch(Pat.c_str(), Id.c_str()))
      Enabled = !Neg;
  }
  return Enabled;
}

} // namespace pkb
