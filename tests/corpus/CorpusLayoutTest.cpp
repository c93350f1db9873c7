//===- CorpusLayoutTest.cpp - kernels/corpus follows docs/corpus.md -------===//
//
// The rules of docs/corpus.md ("Layout", "Annotation format") checked on
// every file of kernels/corpus, without Python (CI has none; the same rules
// are in tests/corpus/tools/check_annotations.py for check_compile.sh):
//
//  * buggy/<id>_<nn>_<style>.cu|py and correct/c<nn>_<protocol>_<style>.cu|py,
//    style from the documented list, `pkb` exactly for .py files, serials
//    unique;
//  * line 1 `// <file name>: BUG(<ID>) <what is wrong>. FIX: <how>` or
//    `// <file name>: CORRECT <protocol and why it is sound>` (`#` in .py
//    files), never containing `expect:`;
//  * exactly one `expect:` annotation per buggy file, none in correct ones,
//    its ID in the checker registry, equal to the file-name prefix and to the
//    header's BUG(<ID>); `//` inside CUDA code, `#` only on Python lines and
//    only for HOST-001 and BAR-004; at least one buggy file per ID;
//  * the per-file tables and counts of docs/corpus.md equal the files.
//
// Each check is a function of a root directory, so the tests also run it on
// a temporary corpus with planted violations to show that it can fail.
//
//===----------------------------------------------------------------------===//
#include "pkb/Checker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace pkb;
namespace fs = std::filesystem;

namespace {

/// The styles of docs/corpus.md, "Layout".
const char *const StyleAlternatives =
    "rawptr|addrtab|peerview|atomicref|ptx|coop|pkb";

/// The annotation regex of docs/corpus.md, "Annotation format".
const std::regex &expectRe() {
  static const std::regex Re(R"((//|#)\s*expect:\s*([A-Z]+-\d{3})\s*$)");
  return Re;
}

/// The check IDs of the checker registry.
std::set<std::string> registryIds() {
  std::set<std::string> R;
  for (const auto &C : allCheckers())
    R.insert(C->info().Id);
  return R;
}

/// The lines of \p P (without line terminators).
std::vector<std::string> readLines(const fs::path &P) {
  std::vector<std::string> R;
  std::ifstream In(P);
  std::string Line;
  while (std::getline(In, Line))
    R.push_back(Line);
  return R;
}

/// The .cu/.py file names of \p Dir, sorted, and a problem for anything else
/// in it.
std::vector<std::string> listDir(const fs::path &Dir, const std::string &Sub,
                                 std::vector<std::string> &Problems) {
  std::vector<std::string> R;
  if (!fs::is_directory(Dir)) {
    Problems.push_back(Sub + "/: missing directory");
    return R;
  }
  for (const auto &E : fs::directory_iterator(Dir)) {
    std::string Name = E.path().filename().string();
    std::string Ext = E.path().extension().string();
    if (E.is_regular_file() && (Ext == ".cu" || Ext == ".py"))
      R.push_back(Name);
    else
      Problems.push_back(Sub + "/" + Name + ": not a .cu or .py file");
  }
  std::sort(R.begin(), R.end());
  return R;
}

/// One `expect:` annotation: 1-based line, comment marker, check ID.
struct Annotation {
  unsigned Line;
  std::string Marker, Id;
};

/// 1-based first and last line of a .py file's `CUDA_SRC = r'''...'''`
/// block, or {0, 0} when there is none.
std::pair<unsigned, unsigned> cudaSpan(const std::vector<std::string> &Lines) {
  static const std::regex Start(R"(^CUDA_SRC\s*=\s*r''')");
  unsigned First = 0;
  for (unsigned I = 0; I < Lines.size(); ++I) {
    if (!First && std::regex_search(Lines[I], Start))
      First = I + 1;
    else if (First && Lines[I].rfind("'''", 0) == 0)
      return {First, I + 1};
  }
  return {0, 0};
}

/// Checks the file names, headers and annotations of the corpus at \p Root
/// (a directory with buggy/ and correct/) against docs/corpus.md, with \p Ids
/// as the known check IDs. Returns one message per violation, each starting
/// with the file's path relative to \p Root; empty when the corpus is clean.
std::vector<std::string> checkCorpusLayout(const fs::path &Root,
                                           const std::set<std::string> &Ids) {
  std::vector<std::string> Problems;
  const std::string Styles = StyleAlternatives;
  const std::regex BuggyName("^([a-z]+)([0-9]{3})_([0-9]{2})_(" + Styles +
                             R"()\.(cu|py)$)");
  const std::regex CorrectName("^c([0-9]{2})_([a-z0-9]+(_[a-z0-9]+)*)_(" +
                               Styles + R"()\.(cu|py)$)");
  const std::regex BugHeader(
      R"(^(//|#) (\S+): BUG\(([A-Z]+-\d{3})\) .+\. FIX: .+$)");
  const std::regex CorrectHeader(R"(^(//|#) (\S+): CORRECT .+$)");
  std::map<std::string, std::string> Serials; // serial -> first file
  std::map<std::string, unsigned> PerId;
  for (const char *Sub : {"buggy", "correct"}) {
    const bool Buggy = std::string(Sub) == "buggy";
    for (const std::string &Name : listDir(Root / Sub, Sub, Problems)) {
      const std::string Rel = std::string(Sub) + "/" + Name;
      auto Bad = [&](const std::string &Msg) {
        Problems.push_back(Rel + ": " + Msg);
      };
      const bool Py = Name.size() > 3 && Name.substr(Name.size() - 3) == ".py";
      const std::string Marker = Py ? "#" : "//";
      std::vector<std::string> Lines = readLines(Root / Sub / Name);

      // File name.
      std::smatch NM;
      std::string Prefix, Style, Serial;
      if (Buggy && std::regex_match(Name, NM, BuggyName)) {
        Prefix = NM[1].str();
        for (char &C : Prefix)
          C = static_cast<char>(toupper(static_cast<unsigned char>(C)));
        Prefix += "-" + NM[2].str();
        Style = NM[4].str();
        Serial = NM[1].str() + NM[2].str() + "_" + NM[3].str();
      } else if (!Buggy && std::regex_match(Name, NM, CorrectName)) {
        Style = NM[4].str();
        Serial = "c" + NM[1].str();
      } else {
        Bad(std::string(Buggy ? "file name must be <id>_<nn>_<style>.cu|py"
                              : "file name must be "
                                "c<nn>_<protocol>_<style>.cu|py") +
            ", style one of " + StyleAlternatives);
      }
      if (!Style.empty() && (Style == "pkb") != Py)
        Bad("style pkb if and only if the file is .py");
      if (!Serial.empty()) {
        auto [It, New] = Serials.emplace(Serial, Name);
        if (!New)
          Bad("serial " + Serial + " is also used by " + It->second);
      }

      // Annotations.
      std::vector<Annotation> Anns;
      for (unsigned I = 0; I < Lines.size(); ++I) {
        if (Lines[I].find("expect:") == std::string::npos)
          continue;
        std::smatch AM;
        if (I == 0)
          Bad("line 1: the header must not contain `expect:`");
        else if (std::regex_search(Lines[I], AM, expectRe()))
          Anns.push_back({I + 1, AM[1].str(), AM[2].str()});
        else
          Bad("line " + std::to_string(I + 1) +
              ": malformed `expect:` annotation");
      }
      if (!Buggy && !Anns.empty())
        Bad("correct file has an `expect:` annotation (line " +
            std::to_string(Anns.front().Line) + ")");
      if (Buggy && Anns.size() != 1)
        Bad("buggy file needs exactly one `expect:` annotation, found " +
            std::to_string(Anns.size()));
      std::string AnnId = Anns.size() == 1 && Buggy ? Anns[0].Id : "";
      if (!AnnId.empty()) {
        const Annotation &A = Anns[0];
        const std::string At = "line " + std::to_string(A.Line) + ": ";
        if (!Ids.count(AnnId))
          Bad(At + AnnId + " is not a check ID of the checker registry");
        if (!Prefix.empty() && AnnId != Prefix)
          Bad(At + "annotation " + AnnId + " does not match the file name (" +
              Prefix + ")");
        ++PerId[AnnId];
        if (!Py && A.Marker != "//")
          Bad(At + "use `// expect:` in .cu files");
        if (Py) {
          auto [First, Last] = cudaSpan(Lines);
          bool InCuda = First && First < A.Line && A.Line < Last;
          if (InCuda != (A.Marker == "//"))
            Bad(At + "use `//` inside CUDA_SRC and `#` outside it");
          if (!InCuda && AnnId != "HOST-001" && AnnId != "BAR-004")
            Bad(At + "only HOST-001 and BAR-004 are annotated on Python "
                     "lines");
        }
      }

      // Header: the rule's shape, then the marker, the file's own name and
      // (buggy files) the annotation's ID.
      const std::string Header = Lines.empty() ? "" : Lines[0];
      const std::string Shape =
          Buggy ? ": BUG(<ID>) <what is wrong>. FIX: <how>`"
                : ": CORRECT <protocol and why it is sound>`";
      std::smatch HM;
      if (!std::regex_match(Header, HM, Buggy ? BugHeader : CorrectHeader)) {
        Bad("line 1: header must be `" + Marker + " " + Name + Shape);
        continue;
      }
      if (HM[1].str() != Marker)
        Bad("line 1: the header comment must start with `" + Marker + "`");
      if (HM[2].str() != Name)
        Bad("line 1: the header names " + HM[2].str() +
            " instead of the file itself");
      if (Buggy && !AnnId.empty() && HM[3].str() != AnnId)
        Bad("line 1: header BUG(" + HM[3].str() +
            ") differs from the annotation " + AnnId);
    }
  }
  for (const std::string &Id : Ids)
    if (PerId[Id] < 1)
      Problems.push_back("buggy/: " + Id + " has 0 buggy files");
  return Problems;
}

/// "a 3, b 4" -> {a: 3, b: 4}: the `<style> <count>` items of a summary line
/// (text in parentheses after a count is ignored).
std::map<std::string, unsigned> styleCounts(const std::string &Text) {
  static const std::regex Item(R"(([a-z]+) ([0-9]+))");
  std::map<std::string, unsigned> R;
  for (std::sregex_iterator It(Text.begin(), Text.end(), Item), End; It != End;
       ++It)
    R[(*It)[1].str()] = static_cast<unsigned>(std::stoul((*It)[2].str()));
  return R;
}

/// `{a: 3, b: 4}` as "a 3, b 4" for messages.
std::string showCounts(const std::map<std::string, unsigned> &M) {
  std::string R;
  for (const auto &[K, V] : M)
    R += (R.empty() ? "" : ", ") + K + " " + std::to_string(V);
  return R;
}

/// Checks the per-file tables and counts of \p Doc (docs/corpus.md) against
/// the corpus at \p Root: a row for every buggy file with its annotation's
/// ID and line and its style, a row for every correct file with its style,
/// no row for a file that does not exist, and the per-ID counts, the total
/// and both per-style summaries equal to the files. Returns one message per
/// difference; empty when the document is true.
std::vector<std::string> checkCorpusDocs(const fs::path &Doc,
                                         const fs::path &Root) {
  std::vector<std::string> Problems;
  auto Bad = [&](const std::string &Msg) {
    Problems.push_back("docs/corpus.md: " + Msg);
  };
  // What the files say.
  struct BuggyFact {
    std::string Id, Style;
    unsigned Line = 0;
  };
  std::map<std::string, BuggyFact> Buggy;
  std::map<std::string, std::string> Correct; // name -> style
  std::map<std::string, unsigned> PerId, BuggyStyles, CorrectStyles;
  auto styleOf = [](const std::string &Name) {
    size_t U = Name.rfind('_'), D = Name.rfind('.');
    return U == std::string::npos || D < U ? std::string()
                                           : Name.substr(U + 1, D - U - 1);
  };
  std::vector<std::string> Ignored; // reported by checkCorpusLayout
  for (const std::string &Name : listDir(Root / "buggy", "buggy", Ignored)) {
    BuggyFact F;
    F.Style = styleOf(Name);
    std::vector<std::string> Lines = readLines(Root / "buggy" / Name);
    for (unsigned I = 1; I < Lines.size(); ++I) {
      std::smatch M;
      if (std::regex_search(Lines[I], M, expectRe())) {
        F.Id = M[2].str();
        F.Line = I + 1;
      }
    }
    ++PerId[F.Id];
    ++BuggyStyles[F.Style];
    Buggy[Name] = F;
  }
  for (const std::string &Name :
       listDir(Root / "correct", "correct", Ignored)) {
    Correct[Name] = styleOf(Name);
    ++CorrectStyles[Correct[Name]];
  }

  // What the document says.
  static const std::regex BuggyRow(
      R"(^\| `([^`]+)` \| ([A-Z]+-\d{3}) \| ([0-9]+) \| ([a-z]+) \| .+ \|$)");
  static const std::regex CorrectRow(
      R"(^\| `(c[0-9]{2}[^`]*)` \| ([a-z]+)( \(ABI\))? \| .+ \| .+ \|$)");
  static const std::regex CountRow(
      R"(^\| ([A-Z]+-\d{3}|total) \| ([0-9]+) \|$)");
  static const std::regex BuggyStyleLine(
      R"(^By style: (.+) \(([0-9]+) files\)\.$)");
  static const std::regex CorrectStyleLine(R"(^([0-9]+) files: (.+)\.$)");
  std::set<std::string> BuggyRows, CorrectRows, CountIds;
  bool SawBuggyStyles = false, SawCorrectStyles = false, SawTotal = false;
  for (const std::string &L : readLines(Doc)) {
    std::smatch M;
    if (std::regex_match(L, M, BuggyRow)) {
      const std::string Name = M[1].str();
      if (!BuggyRows.insert(Name).second)
        Bad("two rows for " + Name);
      auto It = Buggy.find(Name);
      if (It == Buggy.end()) {
        Bad("row for buggy/" + Name + ", which does not exist");
        continue;
      }
      const BuggyFact &F = It->second;
      if (M[2].str() != F.Id || M[3].str() != std::to_string(F.Line))
        Bad(Name + ": the row says " + M[2].str() + " at line " + M[3].str() +
            ", the file's annotation is " + F.Id + " at line " +
            std::to_string(F.Line));
      if (M[4].str() != F.Style)
        Bad(Name + ": the row's style " + M[4].str() + " is not " + F.Style);
    } else if (std::regex_match(L, M, CorrectRow)) {
      const std::string Name = M[1].str();
      if (!CorrectRows.insert(Name).second)
        Bad("two rows for " + Name);
      auto It = Correct.find(Name);
      if (It == Correct.end())
        Bad("row for correct/" + Name + ", which does not exist");
      else if (M[2].str() != It->second)
        Bad(Name + ": the row's style " + M[2].str() + " is not " + It->second);
    } else if (std::regex_match(L, M, CountRow)) {
      const std::string Id = M[1].str();
      const unsigned Want =
          Id == "total" ? static_cast<unsigned>(Buggy.size()) : PerId[Id];
      SawTotal = SawTotal || Id == "total";
      CountIds.insert(Id);
      if (M[2].str() != std::to_string(Want))
        Bad("count for " + Id + " is " + M[2].str() + ", the files give " +
            std::to_string(Want));
    } else if (std::regex_match(L, M, BuggyStyleLine)) {
      SawBuggyStyles = true;
      if (styleCounts(M[1].str()) != BuggyStyles ||
          M[2].str() != std::to_string(Buggy.size()))
        Bad("buggy files by style: the document says \"" + M[1].str() + " (" +
            M[2].str() + " files)\", the files give " +
            showCounts(BuggyStyles) + " (" + std::to_string(Buggy.size()) +
            " files)");
    } else if (std::regex_match(L, M, CorrectStyleLine)) {
      SawCorrectStyles = true;
      if (styleCounts(M[2].str()) != CorrectStyles ||
          M[1].str() != std::to_string(Correct.size()))
        Bad("correct files by style: the document says \"" + M[1].str() +
            " files: " + M[2].str() + "\", the files give " +
            std::to_string(Correct.size()) +
            " files: " + showCounts(CorrectStyles));
    }
  }
  for (const auto &[Name, F] : Buggy)
    if (!BuggyRows.count(Name))
      Bad("no row for buggy/" + Name);
  for (const auto &[Name, S] : Correct)
    if (!CorrectRows.count(Name))
      Bad("no row for correct/" + Name);
  for (const auto &[Id, N] : PerId)
    if (N && !CountIds.count(Id))
      Bad("no count row for " + Id);
  if (!SawTotal)
    Bad("no `| total | N |` count row");
  if (!SawBuggyStyles)
    Bad("no `By style: ... (N files).` line for the buggy files");
  if (!SawCorrectStyles)
    Bad("no `N files: <style> <count>, ...` line for the correct files");
  return Problems;
}

/// A scratch directory, removed with its contents at the end of the scope.
class ScratchDir {
public:
  /// Creates an empty directory named after \p Tag and this process.
  explicit ScratchDir(const std::string &Tag)
      : Path(fs::temp_directory_path() /
             ("pkb-corpus-layout-" + Tag + "-" + std::to_string(::getpid()))) {
    fs::remove_all(Path);
    fs::create_directories(Path);
  }
  ~ScratchDir() {
    std::error_code EC;
    fs::remove_all(Path, EC);
  }
  ScratchDir(const ScratchDir &) = delete;
  ScratchDir &operator=(const ScratchDir &) = delete;
  /// Writes \p Text to the file \p Rel below the directory.
  void write(const std::string &Rel, const std::string &Text) const {
    fs::create_directories((Path / Rel).parent_path());
    std::ofstream(Path / Rel) << Text;
  }
  fs::path Path;
};

/// True if some message of \p Problems starts with \p File and contains
/// \p What.
bool reported(const std::vector<std::string> &Problems, const std::string &File,
              const std::string &What) {
  return std::any_of(Problems.begin(), Problems.end(), [&](const auto &P) {
    return P.rfind(File, 0) == 0 && P.find(What) != std::string::npos;
  });
}

/// All of \p Problems, one per line, for failure messages.
std::string joined(const std::vector<std::string> &Problems) {
  std::string R;
  for (const std::string &P : Problems)
    R += "  " + P + "\n";
  return R;
}

/// A well-formed buggy .cu file \p Name with a header for \p HeaderId and
/// the annotation `// expect: <AnnId>` on line 3.
std::string buggyCu(const std::string &Name, const std::string &HeaderId,
                    const std::string &AnnId) {
  return "// " + Name + ": BUG(" + HeaderId +
         ") the flag store has no release. FIX: use st.release.sys.\n"
         "__global__ void k(volatile unsigned* f) {\n"
         "  *f = 1;  // expect: " +
         AnnId + "\n}\n";
}

/// A well-formed correct .cu file \p Name.
std::string correctCu(const std::string &Name) {
  return "// " + Name +
         ": CORRECT release store, then a single reader acquires.\n"
         "__global__ void k(unsigned* f) { *f = 1; }\n";
}

TEST(CorpusLayout, NamesHeadersAnnotations) {
  std::vector<std::string> Problems = checkCorpusLayout(
      fs::path(PKB_SOURCE_DIR) / "kernels/corpus", registryIds());
  EXPECT_TRUE(Problems.empty())
      << "kernels/corpus does not follow docs/corpus.md (Layout, Annotation "
         "format):\n"
      << joined(Problems);
}

TEST(CorpusLayout, DocsTablesMatchFiles) {
  std::vector<std::string> Problems =
      checkCorpusDocs(fs::path(PKB_SOURCE_DIR) / "docs/corpus.md",
                      fs::path(PKB_SOURCE_DIR) / "kernels/corpus");
  EXPECT_TRUE(Problems.empty())
      << "docs/corpus.md's tables differ from kernels/corpus:\n"
      << joined(Problems);
}

// The layout check on a corpus with one planted violation per file: every
// violation is reported, naming its file, and the clean files are not.
TEST(CorpusLayout, PlantedViolationsAreReported) {
  ScratchDir D("layout");
  const std::set<std::string> Ids = {"ORD-001", "ORD-002", "SIG-001"};
  // Clean files (SIG-001 has none, so it is reported).
  for (const char *N : {"ord001_01_rawptr.cu", "ord001_02_ptx.cu"})
    D.write(std::string("buggy/") + N, buggyCu(N, "ORD-001", "ORD-001"));
  for (const char *N : {"ord002_01_ptx.cu", "ord002_02_rawptr.cu"})
    D.write(std::string("buggy/") + N, buggyCu(N, "ORD-002", "ORD-002"));
  D.write("correct/c01_release_store_ptx.cu",
          correctCu("c01_release_store_ptx.cu"));
  // One violation each.
  D.write("buggy/ord001_03_cxxhost.cu",
          buggyCu("ord001_03_cxxhost.cu", "ORD-001", "ORD-001"));
  D.write("buggy/ord001_04_ptx.cu",
          "// ord001_04_ptx.cu: BUGGY flag store without release.\n"
          "x;  // expect: ORD-001\n");
  D.write("buggy/ord001_05_ptx.cu",
          buggyCu("ord001_05_ptx.cu", "ORD-001", "ORD-001") +
              "y;  // expect: ORD-001\n");
  D.write("buggy/ord001_06_ptx.cu",
          "// ord001_06_ptx.cu: BUG(ORD-001) no release. FIX: add one.\n");
  D.write("buggy/ord001_07_ptx.cu",
          buggyCu("ord001_07_ptx.cu", "XYZ-001", "XYZ-001"));
  D.write("buggy/ord001_08_ptx.cu",
          buggyCu("ord001_08_ptx.cu", "ORD-002", "ORD-001"));
  D.write("buggy/ord001_09_ptx.cu",
          buggyCu("ord001_99_ptx.cu", "ORD-001", "ORD-001"));
  D.write("buggy/ord001_10_ptx.cu",
          "// ord001_10_ptx.cu: BUG(ORD-001) no release. FIX: add one.\n"
          "x;  // expect: ORD-001 twice\n");
  D.write("buggy/ord001_02_rawptr.cu",
          buggyCu("ord001_02_rawptr.cu", "ORD-001", "ORD-001"));
  D.write("buggy/ord001_11_pkb.py",
          "# ord001_11_pkb.py: BUG(ORD-001) no release. FIX: add one.\n"
          "CUDA_SRC = r'''\n__global__ void k() {}\n'''\n"
          "ext.k()  # expect: ORD-001\n");
  D.write("buggy/ord001_12_pkb.cu",
          buggyCu("ord001_12_pkb.cu", "ORD-001", "ORD-001"));
  D.write("buggy/notes.txt", "not a kernel\n");
  D.write("correct/c02_annotated_ptx.cu",
          correctCu("c02_annotated_ptx.cu") + "x;  // expect: ORD-001\n");
  D.write("correct/bar001_named_arrive_split.cu",
          correctCu("bar001_named_arrive_split.cu"));
  D.write("correct/c03_bad_header_ptx.cu",
          "// c03_bad_header_ptx.cu: CORRECT(BAR-001) named barrier split.\n");
  D.write("correct/c04_expect_in_header_ptx.cu",
          "// c04_expect_in_header_ptx.cu: CORRECT no expect: here.\n");
  D.write("correct/c01_duplicate_ptx.cu", correctCu("c01_duplicate_ptx.cu"));

  std::vector<std::string> P = checkCorpusLayout(D.Path, Ids);
  const std::vector<std::pair<std::string, std::string>> Want = {
      {"buggy/ord001_03_cxxhost.cu", "file name must be <id>_<nn>_<style>"},
      {"buggy/ord001_04_ptx.cu", "header must be"},
      {"buggy/ord001_05_ptx.cu", "exactly one `expect:` annotation, found 2"},
      {"buggy/ord001_06_ptx.cu", "exactly one `expect:` annotation, found 0"},
      {"buggy/ord001_07_ptx.cu", "XYZ-001 is not a check ID"},
      {"buggy/ord001_07_ptx.cu", "does not match the file name (ORD-001)"},
      {"buggy/ord001_08_ptx.cu", "header BUG(ORD-002) differs"},
      {"buggy/ord001_09_ptx.cu", "instead of the file itself"},
      {"buggy/ord001_10_ptx.cu", "malformed `expect:` annotation"},
      {"buggy/ord001_02_rawptr.cu", "serial ord001_02 is also used"},
      {"buggy/ord001_11_pkb.py", "only HOST-001 and BAR-004"},
      {"buggy/ord001_12_pkb.cu", "style pkb if and only if"},
      {"buggy/notes.txt", "not a .cu or .py file"},
      {"correct/c02_annotated_ptx.cu", "correct file has an `expect:`"},
      {"correct/bar001_named_arrive_split.cu",
       "file name must be c<nn>_<protocol>_<style>"},
      {"correct/c03_bad_header_ptx.cu", "header must be"},
      {"correct/c04_expect_in_header_ptx.cu", "must not contain `expect:`"},
      {"correct/c01_release_store_ptx.cu", "serial c01 is also used"},
      {"buggy/", "SIG-001 has 0 buggy files"},
  };
  for (const auto &[File, What] : Want)
    EXPECT_TRUE(reported(P, File, What))
        << "not reported: " << File << ": ..." << What << "...\n"
        << joined(P);
  for (const char *Clean :
       {"buggy/ord001_01_rawptr.cu", "buggy/ord001_02_ptx.cu",
        "buggy/ord002_01_ptx.cu", "buggy/ord002_02_rawptr.cu",
        "correct/c01_duplicate_ptx.cu"})
    EXPECT_FALSE(reported(P, Clean, "")) << Clean << "\n" << joined(P);
}

// The documentation check on a wrong table: every difference is reported.
TEST(CorpusLayout, PlantedDocMismatchesAreReported) {
  ScratchDir D("docs");
  D.write("buggy/ord001_01_rawptr.cu",
          buggyCu("ord001_01_rawptr.cu", "ORD-001", "ORD-001"));
  D.write("buggy/ord001_02_ptx.cu",
          buggyCu("ord001_02_ptx.cu", "ORD-001", "ORD-001"));
  D.write("correct/c01_release_store_ptx.cu",
          correctCu("c01_release_store_ptx.cu"));
  D.write("correct/c02_more_rawptr.cu", correctCu("c02_more_rawptr.cu"));
  const std::string Good =
      "| file | ID | line | style | bug |\n|---|---|---|---|---|\n"
      "| `ord001_01_rawptr.cu` | ORD-001 | 3 | rawptr | no release |\n"
      "| `ord001_02_ptx.cu` | ORD-001 | 3 | ptx | no release |\n\n"
      "| ID | buggy files |\n|---|---|\n| ORD-001 | 2 |\n| total | 2 |\n\n"
      "By style: rawptr 1, ptx 1 (2 files).\n\n"
      "2 files: rawptr 1, ptx 1.\n\n"
      "| file | style | protocol | what makes it correct |\n|---|---|---|---|\n"
      "| `c01_release_store_ptx.cu` | ptx | flag | release |\n"
      "| `c02_more_rawptr.cu` | rawptr | flag | release |\n";
  D.write("good.md", Good);
  std::vector<std::string> P = checkCorpusDocs(D.Path / "good.md", D.Path);
  EXPECT_TRUE(P.empty()) << joined(P);

  const std::string Wrong =
      "| `ord001_01_rawptr.cu` | ORD-001 | 4 | rawptr | no release |\n"
      "| `ord001_09_ptx.cu` | ORD-001 | 3 | ptx | gone |\n"
      "| ORD-001 | 3 |\n| total | 2 |\n"
      "By style: rawptr 2 (2 files).\n"
      "2 files: ptx 2.\n"
      "| `c01_release_store_ptx.cu` | rawptr | flag | release |\n";
  D.write("wrong.md", Wrong);
  P = checkCorpusDocs(D.Path / "wrong.md", D.Path);
  const std::string Doc = "docs/corpus.md: ";
  for (const std::string &What :
       {std::string("ord001_01_rawptr.cu: the row says ORD-001 at line 4"),
        std::string("row for buggy/ord001_09_ptx.cu, which does not exist"),
        std::string("no row for buggy/ord001_02_ptx.cu"),
        std::string("count for ORD-001 is 3, the files give 2"),
        std::string("buggy files by style"),
        std::string("correct files by style"),
        std::string("c01_release_store_ptx.cu: the row's style rawptr"),
        std::string("no row for correct/c02_more_rawptr.cu")})
    EXPECT_TRUE(reported(P, Doc, What)) << "not reported: " << What << "\n"
                                        << joined(P);
}

} // namespace
