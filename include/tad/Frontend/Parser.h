//===- Parser.h - the .tad parser -------------------------------*- C++ -*-===//
//
// A recursive-descent parser; each parseX method states its grammar rule.
// docs/language.md holds the whole grammar.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_FRONTEND_PARSER_H
#define TAD_FRONTEND_PARSER_H

#include "tad/Frontend/AST.h"
#include "tad/Frontend/Lexer.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

namespace tad::lang {

class Parser {
public:
  /// `sizes` and `types` bind the parameters of a generic function to
  /// sizes and element types, for Sema's instances: its types then read as
  /// static ones.
  /// `pack` binds the leading dimensions `...`, which then read as those
  /// sizes in types and in lists (`reshape(x, [..., H, D])`).
  Parser(llvm::StringRef buffer, DiagnosticEngine &diag,
         const llvm::StringMap<int64_t> *sizes = nullptr,
         const llvm::StringMap<ElemKind> *types = nullptr,
         const std::vector<int64_t> *pack = nullptr)
      : lexer(buffer, diag), diag(diag), sizes(sizes), types(types),
        pack(pack) {
    tok = lexer.lex();
  }

  /// Parses a whole file; returns null after reporting the first error.
  std::unique_ptr<Module> parseModule();

  /// Parses the one declaration at the start of the buffer (Sema's
  /// instances of a generic function).
  std::unique_ptr<Decl> parseOneDecl() { return parseDecl(); }

private:
  // Declarations.
  std::unique_ptr<Decl> parseDecl();
  std::unique_ptr<Decl> parseFunctionOrDerivative(
      std::optional<llvm::SMLoc> checkpointAttr);
  std::unique_ptr<Decl> parseDerivative(llvm::SMLoc loc, Name name);
  std::unique_ptr<Decl> parseRule();
  bool parseParams(std::vector<Param> &params);
  bool parseResultTypes(std::vector<TypeWithLoc> &results);
  bool parseType(TensorType &type, DimNames *dims = nullptr,
                 std::string *elemParam = nullptr,
                 std::string *recordName = nullptr,
                 std::vector<RecordArg> *recordArgs = nullptr);
  bool parseRecordArgs(std::vector<RecordArg> &args);
  std::unique_ptr<Decl> parseStruct();
  bool parseDimParams(std::vector<GenericParam> &dims);
  bool parseImport(Module &module);
  /// In an instance: false, with an error, for a variable named as one of
  /// the dimension parameters (their uses read as sizes there).
  bool checkNotDim(const Name &name);

  // Statements.
  bool parseBlock(Block &block);
  StmtPtr parseStmt();
  StmtPtr parseLet();
  StmtPtr parseAssign();
  StmtPtr parseReturn();
  StmtPtr parseFor();
  StmtPtr parseIf();
  StmtPtr parseSave();

  // Expressions.
  ExprPtr parseExpr();
  ExprPtr parseComparison();
  ExprPtr parseAdditive();
  ExprPtr parseMultiplicative();
  ExprPtr parseUnary();
  ExprPtr parsePostfix();
  ExprPtr parsePrimary();
  ExprPtr parseParenthesized();
  ExprPtr parseList();
  bool parseCallArgs(std::vector<CallArg> &args);

  // Tokens.
  void consume() {
    if (peeked) {
      tok = *peeked;
      peeked.reset();
    } else {
      tok = lexer.lex();
    }
  }
  const Token &peek() {
    if (!peeked)
      peeked = lexer.lex();
    return *peeked;
  }
  bool consumeIf(TokenKind kind) {
    if (!tok.is(kind))
      return false;
    consume();
    return true;
  }
  /// Consumes a token of `kind`, or reports `expected <what>`.
  bool expect(TokenKind kind, llvm::StringRef context = "");
  bool expectIdentifier(Name &name, llvm::StringRef what);
  bool errorHere(const llvm::Twine &message);

  /// Guards recursion so that deeply nested input cannot exhaust the stack.
  struct DepthGuard {
    Parser &parser;
    explicit DepthGuard(Parser &parser) : parser(parser) { ++parser.depth; }
    ~DepthGuard() { --parser.depth; }
  };
  bool tooDeep();
  /// Gives `node` the height of its tallest child plus one; false, with an
  /// error at the node, past the limit on an expression's height.
  bool setHeight(Expr &node, unsigned tallestChild);

  Lexer lexer;
  DiagnosticEngine &diag;
  const llvm::StringMap<int64_t> *sizes;
  const llvm::StringMap<ElemKind> *types;
  const std::vector<int64_t> *pack;
  bool genericPackBody = false;
  /// The parameters of the generic function being parsed.
  const std::vector<GenericParam> *dimParams = nullptr;
  Token tok;
  std::optional<Token> peeked;
  unsigned depth = 0;
};

} // namespace tad::lang

#endif // TAD_FRONTEND_PARSER_H
