//===- Lexer.cpp - the .tad lexer -----------------------------------------===//

#include "tad/Frontend/Lexer.h"

#include "llvm/ADT/StringSwitch.h"

#include <cctype>

using namespace tad::lang;

llvm::StringRef tad::lang::getTokenKindName(TokenKind kind) {
  switch (kind) {
  case TokenKind::eof: return "end of file";
  case TokenKind::error: return "invalid token";
  case TokenKind::identifier: return "identifier";
  case TokenKind::integer: return "integer";
  case TokenKind::number: return "number";
  case TokenKind::string:
    return "string";
  case TokenKind::l_paren: return "'('";
  case TokenKind::r_paren: return "')'";
  case TokenKind::l_brace: return "'{'";
  case TokenKind::r_brace: return "'}'";
  case TokenKind::l_square: return "'['";
  case TokenKind::r_square: return "']'";
  case TokenKind::comma: return "','";
  case TokenKind::semicolon: return "';'";
  case TokenKind::colon: return "':'";
  case TokenKind::arrow: return "'->'";
  case TokenKind::dot:
    return "'.'";
  case TokenKind::dotdot: return "'..'";
  case TokenKind::ellipsis: return "'...'";
  case TokenKind::equal: return "'='";
  case TokenKind::eqeq: return "'=='";
  case TokenKind::noteq: return "'!='";
  case TokenKind::less: return "'<'";
  case TokenKind::lesseq: return "'<='";
  case TokenKind::greater: return "'>'";
  case TokenKind::greatereq: return "'>='";
  case TokenKind::plus: return "'+'";
  case TokenKind::minus: return "'-'";
  case TokenKind::star: return "'*'";
  case TokenKind::slash: return "'/'";
  case TokenKind::at: return "'@'";
  case TokenKind::kw_fn: return "'fn'";
  case TokenKind::kw_let: return "'let'";
  case TokenKind::kw_return: return "'return'";
  case TokenKind::kw_for: return "'for'";
  case TokenKind::kw_in: return "'in'";
  case TokenKind::kw_if: return "'if'";
  case TokenKind::kw_else: return "'else'";
  case TokenKind::kw_checkpoint: return "'checkpoint'";
  case TokenKind::kw_rrule: return "'rrule'";
  case TokenKind::kw_import:
    return "'import'";
  case TokenKind::kw_struct:
    return "'struct'";
  case TokenKind::kw_forward: return "'forward'";
  case TokenKind::kw_pullback: return "'pullback'";
  case TokenKind::kw_save: return "'save'";
  case TokenKind::kw_true: return "'true'";
  case TokenKind::kw_false: return "'false'";
  case TokenKind::kw_f32: return "'f32'";
  case TokenKind::kw_f64: return "'f64'";
  case TokenKind::kw_f16: return "'f16'";
  case TokenKind::kw_bf16: return "'bf16'";
  case TokenKind::kw_i32: return "'i32'";
  case TokenKind::kw_i64: return "'i64'";
  }
  return "token";
}

void Lexer::skipWhitespaceAndComments() {
  const char *end = buffer.end();
  while (cur != end) {
    if (std::isspace(static_cast<unsigned char>(*cur))) {
      ++cur;
    } else if (*cur == '/' && cur + 1 != end && cur[1] == '/') {
      while (cur != end && *cur != '\n')
        ++cur;
    } else {
      return;
    }
  }
}

Token Lexer::lexIdentifier(const char *start) {
  const char *end = buffer.end();
  while (cur != end &&
         (std::isalnum(static_cast<unsigned char>(*cur)) || *cur == '_'))
    ++cur;
  llvm::StringRef text(start, cur - start);
  TokenKind kind = llvm::StringSwitch<TokenKind>(text)
                       .Case("fn", TokenKind::kw_fn)
                       .Case("let", TokenKind::kw_let)
                       .Case("return", TokenKind::kw_return)
                       .Case("for", TokenKind::kw_for)
                       .Case("in", TokenKind::kw_in)
                       .Case("if", TokenKind::kw_if)
                       .Case("else", TokenKind::kw_else)
                       .Case("checkpoint", TokenKind::kw_checkpoint)
                       .Case("rrule", TokenKind::kw_rrule)
                       .Case("import", TokenKind::kw_import)
                       .Case("struct", TokenKind::kw_struct)
                       .Case("forward", TokenKind::kw_forward)
                       .Case("pullback", TokenKind::kw_pullback)
                       .Case("save", TokenKind::kw_save)
                       .Case("true", TokenKind::kw_true)
                       .Case("false", TokenKind::kw_false)
                       .Case("f32", TokenKind::kw_f32)
                       .Case("f64", TokenKind::kw_f64)
                       .Case("f16", TokenKind::kw_f16)
                       .Case("bf16", TokenKind::kw_bf16)
                       .Case("i32", TokenKind::kw_i32)
                       .Case("i64", TokenKind::kw_i64)
                       .Default(TokenKind::identifier);
  return make(kind, start);
}

/// number ::= digits ('.' digits)? (('e'|'E') ('+'|'-')? digits)?
/// A '.' belongs to the number only when a digit follows, so `0..48` is an
/// integer, a '..' and another integer.
Token Lexer::lexNumber(const char *start) {
  const char *end = buffer.end();
  auto isDigit = [&](const char *p) {
    return p != end && std::isdigit(static_cast<unsigned char>(*p));
  };
  bool isInteger = true;
  while (isDigit(cur))
    ++cur;
  if (cur != end && *cur == '.' && isDigit(cur + 1)) {
    isInteger = false;
    ++cur;
    while (isDigit(cur))
      ++cur;
  }
  if (cur != end && (*cur == 'e' || *cur == 'E')) {
    const char *p = cur + 1;
    if (p != end && (*p == '+' || *p == '-'))
      ++p;
    if (!isDigit(p)) {
      cur = p;
      diag.error(llvm::SMLoc::getFromPointer(start),
                 "expected digits in the exponent of this number");
      return make(TokenKind::error, start);
    }
    isInteger = false;
    cur = p;
    while (isDigit(cur))
      ++cur;
  }
  if (cur != end &&
      (std::isalpha(static_cast<unsigned char>(*cur)) || *cur == '_')) {
    diag.error(llvm::SMLoc::getFromPointer(cur),
               "unexpected character after a number");
    ++cur;
    return make(TokenKind::error, start);
  }
  return make(isInteger ? TokenKind::integer : TokenKind::number, start);
}

Token Lexer::lex() {
  skipWhitespaceAndComments();
  const char *start = cur;
  if (cur == buffer.end())
    return make(TokenKind::eof, start);

  char c = *cur++;
  auto next = [&](char expected) {
    if (cur != buffer.end() && *cur == expected) {
      ++cur;
      return true;
    }
    return false;
  };
  if (std::isalpha(static_cast<unsigned char>(c)) || c == '_')
    return lexIdentifier(start);
  if (std::isdigit(static_cast<unsigned char>(c)))
    return lexNumber(start);

  switch (c) {
  case '(': return make(TokenKind::l_paren, start);
  case ')': return make(TokenKind::r_paren, start);
  case '{': return make(TokenKind::l_brace, start);
  case '}': return make(TokenKind::r_brace, start);
  case '[': return make(TokenKind::l_square, start);
  case ']': return make(TokenKind::r_square, start);
  case ',': return make(TokenKind::comma, start);
  case ';': return make(TokenKind::semicolon, start);
  case ':': return make(TokenKind::colon, start);
  case '+': return make(TokenKind::plus, start);
  case '*': return make(TokenKind::star, start);
  case '/': return make(TokenKind::slash, start);
  case '@': return make(TokenKind::at, start);
  case '-':
    return make(next('>') ? TokenKind::arrow : TokenKind::minus, start);
  case '=':
    return make(next('=') ? TokenKind::eqeq : TokenKind::equal, start);
  case '<':
    return make(next('=') ? TokenKind::lesseq : TokenKind::less, start);
  case '>':
    return make(next('=') ? TokenKind::greatereq : TokenKind::greater, start);
  case '!':
    if (next('='))
      return make(TokenKind::noteq, start);
    break;
  case '.':
    if (!next('.'))
      return make(TokenKind::dot, start);
    return make(next('.') ? TokenKind::ellipsis : TokenKind::dotdot, start);
  case '"': {
    // A path, on one line, without escapes.
    while (cur != buffer.end() && *cur != '"' && *cur != '\n')
      ++cur;
    if (cur == buffer.end() || *cur != '"') {
      diag.error(llvm::SMLoc::getFromPointer(start),
                 "this string has no closing '\"' on its line");
      return make(TokenKind::error, start);
    }
    ++cur;
    return make(TokenKind::string, start);
  }
  default:
    break;
  }
  if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
    diag.error(llvm::SMLoc::getFromPointer(start),
               "invalid character (byte 0x" +
                   llvm::Twine::utohexstr(static_cast<unsigned char>(c)) +
                   ") in the source");
  else
    diag.error(llvm::SMLoc::getFromPointer(start),
               "unexpected character '" + llvm::Twine(c) + "'");
  return make(TokenKind::error, start);
}
