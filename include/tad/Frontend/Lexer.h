//===- Lexer.h - the .tad lexer ---------------------------------*- C++ -*-===//
//
// Splits a .tad buffer into tokens. Numbers keep their spelling so that
// MLIRGen can round a literal once, directly to the element type it ends up
// with.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_FRONTEND_LEXER_H
#define TAD_FRONTEND_LEXER_H

#include "tad/Frontend/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

namespace tad::lang {

enum class TokenKind {
  eof,
  error,
  identifier,
  integer, // 42
  number,  // 4.2, 1e-3
  string,  // "nn.tad": only in import
  // Punctuation.
  l_paren,
  r_paren,
  l_brace,
  r_brace,
  l_square,
  r_square,
  comma,
  semicolon,
  colon,
  arrow,     // ->
  dot,       // .
  dotdot,    // ..
  ellipsis,  // ...
  equal,     // =
  eqeq,      // ==
  noteq,     // !=
  less,      // <
  lesseq,    // <=
  greater,   // >
  greatereq, // >=
  plus,
  minus,
  star,
  slash,
  at, // @
  // Keywords.
  kw_fn,
  kw_let,
  kw_return,
  kw_for,
  kw_in,
  kw_if,
  kw_else,
  kw_checkpoint,
  kw_rrule,
  kw_import,
  kw_struct,
  kw_forward,
  kw_pullback,
  kw_save,
  kw_true,
  kw_false,
  kw_f32,
  kw_f64,
  kw_f16,
  kw_bf16,
  kw_i32,
  kw_i64,
};

struct Token {
  TokenKind kind = TokenKind::eof;
  llvm::StringRef spelling;

  llvm::SMLoc getLoc() const {
    return llvm::SMLoc::getFromPointer(spelling.data());
  }
  bool is(TokenKind k) const { return kind == k; }
  bool isElementType() const {
    return kind == TokenKind::kw_f32 || kind == TokenKind::kw_f64 ||
           kind == TokenKind::kw_f16 || kind == TokenKind::kw_bf16 ||
           kind == TokenKind::kw_i32 || kind == TokenKind::kw_i64;
  }
};

/// A short, user-facing name for a token kind ("'('", "identifier").
llvm::StringRef getTokenKindName(TokenKind kind);

class Lexer {
public:
  Lexer(llvm::StringRef buffer, DiagnosticEngine &diag)
      : buffer(buffer), cur(buffer.begin()), diag(diag) {}

  /// Returns the next token; an invalid character yields an `error` token
  /// after reporting it.
  Token lex();

  llvm::StringRef getBuffer() const { return buffer; }

private:
  Token make(TokenKind kind, const char *start) const {
    return Token{kind, llvm::StringRef(start, cur - start)};
  }
  Token lexIdentifier(const char *start);
  Token lexNumber(const char *start);
  void skipWhitespaceAndComments();

  llvm::StringRef buffer;
  const char *cur;
  DiagnosticEngine &diag;
};

} // namespace tad::lang

#endif // TAD_FRONTEND_LEXER_H
