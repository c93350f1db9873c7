//===- CompileDb.cpp - Flags from compile_commands.json -------------------===//

#include "CompileDb.h"

#include "pkb/DiagCode.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace pkb {

static std::string normalize(const std::string &Path, const std::string &Dir) {
  fs::path P(Path);
  if (P.is_relative() && !Dir.empty())
    P = fs::path(Dir) / P;
  std::error_code EC;
  fs::path Abs = fs::absolute(P, EC);
  return (EC ? P : Abs).lexically_normal().string();
}

std::vector<std::string> CompileDb::splitCommand(const std::string &Cmd) {
  std::vector<std::string> Out;
  std::string Cur;
  bool InArg = false;
  char Quote = 0;
  for (size_t I = 0; I < Cmd.size(); ++I) {
    char C = Cmd[I];
    if (Quote) {
      if (C == Quote) {
        Quote = 0;
      } else if (C == '\\' && Quote == '"' && I + 1 < Cmd.size() &&
                 (Cmd[I + 1] == '"' || Cmd[I + 1] == '\\')) {
        Cur += Cmd[++I];
      } else {
        Cur += C;
      }
      continue;
    }
    if (C == '\'' || C == '"') {
      Quote = C;
      InArg = true;
    } else if (C == '\\' && I + 1 < Cmd.size()) {
      Cur += Cmd[++I];
      InArg = true;
    } else if (C == ' ' || C == '\t' || C == '\n') {
      if (InArg)
        Out.push_back(Cur);
      Cur.clear();
      InArg = false;
    } else {
      Cur += C;
      InArg = true;
    }
  }
  if (InArg)
    Out.push_back(Cur);
  return Out;
}

std::vector<std::string>
CompileDb::filterFlags(const std::vector<std::string> &Args,
                       const std::string &Dir) {
  std::vector<std::string> Out;
  auto PathFlag = [&](const std::string &Flag, const std::string &Value) {
    Out.push_back(Flag);
    Out.push_back(normalize(Value, Dir));
  };
  for (size_t I = 0; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    bool HasNext = I + 1 < Args.size();
    // Include directories: -I dir, -Idir, -isystem dir, --include-path=dir,
    // --system-include=dir (nvcc).
    if ((A == "-I" || A == "--include-path") && HasNext) {
      PathFlag("-I", Args[++I]);
    } else if (A.rfind("--include-path=", 0) == 0) {
      PathFlag("-I", A.substr(15));
    } else if (A.rfind("-I", 0) == 0 && A.size() > 2) {
      PathFlag("-I", A.substr(2));
    } else if ((A == "-isystem" || A == "--system-include") && HasNext) {
      PathFlag("-isystem", Args[++I]);
    } else if (A.rfind("--system-include=", 0) == 0) {
      PathFlag("-isystem", A.substr(17));
    } else if (A.rfind("-isystem", 0) == 0 && A.size() > 8) {
      PathFlag("-isystem", A.substr(8));
    } else if ((A == "-include" || A == "--pre-include") && HasNext) {
      PathFlag("-include", Args[++I]);
    } else if ((A == "-D" || A == "--define-macro") && HasNext) {
      Out.push_back("-D" + Args[++I]);
    } else if (A.rfind("--define-macro=", 0) == 0) {
      Out.push_back("-D" + A.substr(15));
    } else if (A.rfind("-D", 0) == 0 && A.size() > 2) {
      Out.push_back(A);
    } else if ((A == "-U" || A == "--undefine-macro") && HasNext) {
      Out.push_back("-U" + Args[++I]);
    } else if (A.rfind("-U", 0) == 0 && A.size() > 2) {
      Out.push_back(A);
    } else if (A.rfind("-std=", 0) == 0 || A.rfind("--std=", 0) == 0) {
      Out.push_back("-std=" + A.substr(A.find('=') + 1));
    } else if (A == "-std" && HasNext) {
      Out.push_back("-std=" + Args[++I]);
    }
  }
  return Out;
}

std::optional<CompileDb> CompileDb::load(const std::string &BuildDir,
                                         std::vector<Diagnostic> &Diags) {
  std::string Path = (fs::path(BuildDir) / "compile_commands.json").string();
  auto Fail = [&](unsigned Line, const std::string &Msg) {
    Diagnostic D;
    D.Code = toString(DiagCode::CompileDb);
    D.Sev = Severity::Error;
    D.Loc = SourceLoc{Path, Line, 1};
    D.Message = Msg;
    Diags.push_back(D);
    return std::nullopt;
  };
  std::ifstream In(Path);
  if (!In)
    return Fail(1, "cannot open compilation database");
  std::string Text((std::istreambuf_iterator<char>(In)),
                   std::istreambuf_iterator<char>());
  nlohmann::json J = nlohmann::json::parse(Text, nullptr, false);
  if (J.is_discarded()) {
    // Report the line of the first syntax error, found by a throwing parse.
    unsigned Line = 1;
    try {
      nlohmann::json Ignored = nlohmann::json::parse(Text);
      (void)Ignored;
    } catch (const nlohmann::json::parse_error &E) {
      for (size_t I = 0; I < E.byte && I < Text.size(); ++I)
        Line += Text[I] == '\n';
    }
    return Fail(Line, "compilation database is not valid JSON");
  }
  if (!J.is_array())
    return Fail(1, "compilation database must be a JSON array");
  CompileDb Db;
  for (size_t Idx = 0; Idx < J.size(); ++Idx) {
    const auto &E = J[Idx];
    if (!E.is_object() || !E.contains("file") || !E["file"].is_string())
      continue;
    std::string Dir = E.value("directory", BuildDir);
    std::vector<std::string> Args;
    if (E.contains("arguments") && E["arguments"].is_array()) {
      for (const auto &A : E["arguments"])
        if (A.is_string())
          Args.push_back(A.get<std::string>());
    } else if (E.contains("command") && E["command"].is_string()) {
      Args = splitCommand(E["command"].get<std::string>());
    }
    Db.Entries.push_back(Entry{normalize(E["file"].get<std::string>(), Dir),
                               filterFlags(Args, Dir)});
  }
  return Db;
}

std::optional<std::vector<std::string>>
CompileDb::flagsFor(const std::string &File) const {
  std::string Key = normalize(File, "");
  for (const Entry &E : Entries)
    if (E.File == Key)
      return E.Flags;
  return std::nullopt;
}

} // namespace pkb
