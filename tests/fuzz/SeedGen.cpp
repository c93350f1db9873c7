//===- SeedGen.cpp - Seed corpora for the fuzz targets, from the repo -----===//
//
// Usage: fuzz_seedgen SOURCE_DIR WORK_DIR
//
// Writes WORK_DIR/seeds/<target>/ from the repository, so that no binary
// corpus is committed, and creates the (initially empty) working corpora
// WORK_DIR/corpus/<target>/ that libFuzzer adds new inputs to:
//   python_extract  every .py and .cu file under kernels/
//   ptx             the template string of every asm statement found there
//                   (C escapes decoded, adjacent literals concatenated)
//   records         every line of the bundled results files (docs/**.jsonl)
//                   and their first three lines together
//   writers         a few byte strings cut from kernels/ (the provider reads
//                   any bytes)
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string readFile(const fs::path &P) {
  std::ifstream In(P, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

class SeedDir {
public:
  explicit SeedDir(fs::path D) : Dir(std::move(D)) {
    fs::create_directories(Dir);
  }
  void add(const std::string &Bytes) {
    std::ofstream O(Dir / ("seed-" + std::to_string(N++)),
                    std::ios::binary | std::ios::trunc);
    O << Bytes;
  }
  unsigned count() const { return N; }

private:
  fs::path Dir;
  unsigned N = 0;
};

/// Files under \p Root with one of \p Exts, sorted.
std::vector<fs::path> filesUnder(const fs::path &Root,
                                 const std::vector<std::string> &Exts) {
  std::vector<fs::path> Out;
  std::error_code EC;
  for (auto It = fs::recursive_directory_iterator(Root, EC);
       !EC && It != fs::recursive_directory_iterator(); It.increment(EC))
    if (It->is_regular_file() &&
        std::find(Exts.begin(), Exts.end(), It->path().extension()) !=
            Exts.end())
      Out.push_back(It->path());
  std::sort(Out.begin(), Out.end());
  return Out;
}

/// Decodes the C string literal starting at S[I] == '"'; I ends past it.
std::string cString(const std::string &S, size_t &I) {
  std::string Out;
  for (++I; I < S.size() && S[I] != '"'; ++I) {
    if (S[I] != '\\' || I + 1 >= S.size()) {
      Out.push_back(S[I]);
      continue;
    }
    char C = S[++I];
    switch (C) {
    case 'n':
      Out.push_back('\n');
      break;
    case 't':
      Out.push_back('\t');
      break;
    case '\n': // line continuation
      break;
    default:
      Out.push_back(C); // \" \\ and anything else: the character
    }
  }
  ++I;
  return Out;
}

/// The template strings of the asm statements of \p Text: `asm`, optional
/// volatile qualifiers, `(`, then adjacent string literals.
std::vector<std::string> asmTemplates(const std::string &Text) {
  std::vector<std::string> Out;
  for (size_t P = Text.find("asm"); P != std::string::npos;
       P = Text.find("asm", P + 3)) {
    if (P > 0 && (std::isalnum(static_cast<unsigned char>(Text[P - 1])) ||
                  Text[P - 1] == '_'))
      continue;
    size_t I = P + 3;
    auto Skip = [&] {
      while (I < Text.size() &&
             std::isspace(static_cast<unsigned char>(Text[I])))
        ++I;
    };
    Skip();
    for (const char *Q : {"volatile", "__volatile__"})
      if (Text.compare(I, std::strlen(Q), Q) == 0) {
        I += std::strlen(Q);
        Skip();
      }
    if (I >= Text.size() || Text[I] != '(')
      continue;
    ++I;
    Skip();
    std::string T;
    bool Any = false;
    while (I < Text.size() && Text[I] == '"') {
      T += cString(Text, I);
      Any = true;
      Skip();
    }
    if (Any && !T.empty())
      Out.push_back(T);
  }
  return Out;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc != 3) {
    std::cerr << "usage: fuzz_seedgen SOURCE_DIR WORK_DIR\n";
    return 2;
  }
  fs::path Src = Argv[1], Work = Argv[2];
  if (!fs::is_directory(Src / "kernels")) {
    std::cerr << "fuzz_seedgen: no kernels/ under " << Src << "\n";
    return 2;
  }
  fs::remove_all(Work / "seeds");
  for (const char *T : {"python_extract", "ptx", "records", "writers"})
    fs::create_directories(Work / "corpus" / T);

  SeedDir Py(Work / "seeds" / "python_extract"), Ptx(Work / "seeds" / "ptx"),
      Rec(Work / "seeds" / "records"), Wr(Work / "seeds" / "writers");
  std::vector<std::string> AllPtx;
  for (const fs::path &F :
       filesUnder(Src / "kernels", {".py", ".cu", ".cuh"})) {
    std::string Text = readFile(F);
    Py.add(Text);
    for (std::string &T : asmTemplates(Text))
      if (std::find(AllPtx.begin(), AllPtx.end(), T) == AllPtx.end())
        AllPtx.push_back(std::move(T));
    if (Wr.count() < 16)
      Wr.add(Text.substr(0, 512));
  }
  for (const std::string &T : AllPtx)
    Ptx.add(T);
  for (const fs::path &F : filesUnder(Src / "docs", {".jsonl"})) {
    std::istringstream In(readFile(F));
    std::string Line, FirstLines;
    for (unsigned N = 0; std::getline(In, Line); ++N) {
      Rec.add(Line);
      if (N < 3)
        FirstLines += Line + "\n";
    }
    Rec.add(FirstLines);
  }
  std::cout << "fuzz_seedgen: " << Py.count() << " python_extract, "
            << Ptx.count() << " ptx, " << Rec.count() << " records, "
            << Wr.count() << " writers seeds in " << (Work / "seeds") << "\n";
  return Py.count() && Ptx.count() && Rec.count() ? 0 : 1;
}
