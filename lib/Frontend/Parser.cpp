//===- Parser.cpp - the .tad parser ---------------------------------------===//
//
// Recursive descent with one token of lookahead (two where a named argument
// `axes: [...]` must be told from an expression). The first error stops the
// parse.
//
//===----------------------------------------------------------------------===//

#include "tad/Frontend/Parser.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/StringExtras.h"

using namespace tad::lang;
using llvm::SMLoc;

/// Nesting deeper than this is reported rather than recursed into.
static constexpr unsigned kMaxDepth = 200;
/// Dimension sizes and element counts above this are rejected: no tensor of
/// that size fits in memory, and the limit keeps byte sizes within int64.
static constexpr int64_t kMaxElements = int64_t(1) << 40;

/// How a message names the current token: 'x', or end of file.
static std::string describe(const Token &tok) {
  if (tok.is(TokenKind::eof))
    return "end of file";
  return ("'" + tok.spelling + "'").str();
}

bool Parser::errorHere(const llvm::Twine &message) {
  return diag.error(tok.getLoc(), message);
}

bool Parser::expect(TokenKind kind, llvm::StringRef context) {
  if (consumeIf(kind))
    return true;
  if (tok.is(TokenKind::error))
    return false; // the lexer reported it
  std::string message = ("expected " + getTokenKindName(kind)).str();
  if (!context.empty())
    message += (" " + context).str();
  if (tok.is(TokenKind::eof))
    message += ", found end of file";
  else
    message += (", found '" + tok.spelling + "'").str();
  return errorHere(message);
}

bool Parser::expectIdentifier(Name &name, llvm::StringRef what) {
  if (!tok.is(TokenKind::identifier)) {
    if (tok.is(TokenKind::error))
      return false;
    if (tok.is(TokenKind::eof))
      return errorHere("expected " + what + ", found end of file");
    return errorHere("expected " + what + ", found '" + tok.spelling + "'");
  }
  name = Name{tok.getLoc(), tok.spelling.str()};
  consume();
  return true;
}

/// The height of an expression tree (a chain `a + b + c` is as high as it
/// is long): the passes over the tree recurse once per level, and this
/// keeps them well within an 8 MiB stack (20,000 levels overflowed it).
static constexpr unsigned kMaxExprHeight = 4000;

bool Parser::setHeight(Expr &node, unsigned tallestChild) {
  node.height = tallestChild + 1;
  if (node.height <= kMaxExprHeight)
    return true;
  return diag.error(node.getLoc(),
                    "expression is more than " + llvm::Twine(kMaxExprHeight) +
                        " levels deep (a chain of operators counts one "
                        "level per operator); split it with let");
}

bool Parser::tooDeep() {
  if (depth <= kMaxDepth)
    return false;
  errorHere("nesting is deeper than " + llvm::Twine(kMaxDepth) + " levels");
  return true;
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

/// module ::= decl*
std::unique_ptr<Module> Parser::parseModule() {
  auto module = std::make_unique<Module>();
  module->sources.push_back(lexer.getBuffer());
  while (!tok.is(TokenKind::eof)) {
    if (tok.is(TokenKind::kw_import)) {
      if (!parseImport(*module))
        return nullptr;
      continue;
    }
    std::unique_ptr<Decl> decl = parseDecl();
    if (!decl)
      return nullptr;
    module->decls.push_back(std::move(decl));
  }
  if (diag.hadError())
    return nullptr;
  return module;
}

/// import ::= 'import' STRING ';'
bool Parser::parseImport(Module &module) {
  consume(); // 'import'
  if (!tok.is(TokenKind::string)) {
    if (!tok.is(TokenKind::error))
      errorHere("expected the path of a .tad file in quotes after import, "
                "as in import \"nn.tad\";");
    return false;
  }
  Import import{tok.getLoc(), tok.spelling.drop_front().drop_back().str()};
  if (import.path.empty())
    return errorHere("the path of an import is empty");
  consume();
  if (!expect(TokenKind::semicolon, "after the import"))
    return false;
  module.imports.push_back(std::move(import));
  return true;
}

/// decl ::= ('@' 'checkpoint')? function | derivative | rule | struct
std::unique_ptr<Decl> Parser::parseDecl() {
  if (tok.is(TokenKind::at)) {
    SMLoc attrLoc = tok.getLoc();
    consume();
    if (!tok.is(TokenKind::kw_checkpoint)) {
      if (!tok.is(TokenKind::error))
        errorHere("unknown function attribute; the only one is @checkpoint");
      return nullptr;
    }
    consume();
    if (!tok.is(TokenKind::kw_fn)) {
      expect(TokenKind::kw_fn, "after @checkpoint");
      return nullptr;
    }
    return parseFunctionOrDerivative(attrLoc);
  }
  if (tok.is(TokenKind::kw_fn))
    return parseFunctionOrDerivative(std::nullopt);
  if (tok.is(TokenKind::kw_rrule))
    return parseRule();
  if (tok.is(TokenKind::kw_struct))
    return parseStruct();
  if (!tok.is(TokenKind::error))
    errorHere("expected 'fn', 'rrule' or 'struct' at the top level, found '" +
              tok.spelling + "'");
  return nullptr;
}

/// struct ::= 'struct' IDENT '{' (IDENT ':' type (',' IDENT ':' type)* ','?)?
/// '}'
std::unique_ptr<Decl> Parser::parseStruct() {
  SMLoc loc = tok.getLoc();
  consume(); // 'struct'
  Name name;
  if (!expectIdentifier(name, "the name of the struct"))
    return nullptr;
  std::vector<GenericParam> dims;
  if (tok.is(TokenKind::l_square)) {
    if (!parseDimParams(dims))
      return nullptr;
    if (auto pack = llvm::find_if(dims, [](const GenericParam &p) {
          return p.isPack;
        });
        pack != dims.end()) {
      diag.error(pack->loc, "a struct's parameters are named; '...' is for "
                            "functions");
      return nullptr;
    }
  }
  if (!expect(TokenKind::l_brace, "to start the fields"))
    return nullptr;
  // An instance binds the parameters: its fields' types are static.
  dimParams = sizes || types ? nullptr : &dims;
  std::vector<Param> fields;
  while (!tok.is(TokenKind::r_brace)) {
    Param field;
    Name fieldName;
    if (!expectIdentifier(fieldName, "a field name"))
      return nullptr;
    field.loc = fieldName.loc;
    field.name = std::move(fieldName.name);
    if (!expect(TokenKind::colon, "and the field's type"))
      return nullptr;
    field.typeLoc = tok.getLoc();
    if (!parseType(field.type, &field.dims, &field.elemParam,
                   &field.recordName, &field.recordArgs)) {
      dimParams = nullptr;
      return nullptr;
    }
    fields.push_back(std::move(field));
    if (!consumeIf(TokenKind::comma))
      break;
  }
  dimParams = nullptr;
  if (!expect(TokenKind::r_brace, "to end the fields"))
    return nullptr;
  auto decl =
      std::make_unique<StructDecl>(loc, std::move(name), std::move(fields));
  if (!sizes && !types)
    decl->dims = std::move(dims);
  return decl;
}

/// function ::= 'fn' IDENT dims? params '->' results block
std::unique_ptr<Decl>
Parser::parseFunctionOrDerivative(std::optional<SMLoc> checkpointAttr) {
  SMLoc loc = checkpointAttr ? *checkpointAttr : tok.getLoc();
  consume(); // 'fn'
  Name name;
  if (!expectIdentifier(name, "a function name"))
    return nullptr;
  if (tok.is(TokenKind::equal)) {
    if (checkpointAttr) {
      diag.error(*checkpointAttr,
                 "@checkpoint applies to functions with a body, not to "
                 "derivative requests");
      return nullptr;
    }
    return parseDerivative(loc, std::move(name));
  }
  std::vector<GenericParam> dims;
  if (tok.is(TokenKind::l_square) && !parseDimParams(dims))
    return nullptr;
  std::vector<Param> params;
  std::vector<TypeWithLoc> results;
  Block body;
  // Instances bind the dimensions to sizes: their types are static.
  dimParams = sizes || types ? nullptr : &dims;
  bool parsed = parseParams(params) &&
                expect(TokenKind::arrow, "and the result types") &&
                parseResultTypes(results);
  dimParams = nullptr;
  // The generic body of a function with `...`: its lists may start with
  // it (bound in each instance, where `pack` is set).
  genericPackBody = !sizes && !types && llvm::any_of(dims, [](const GenericParam &p) {
                      return p.isPack;
                    });
  bool bodyParsed = parsed && parseBlock(body);
  genericPackBody = false;
  if (!bodyParsed)
    return nullptr;
  auto fn = std::make_unique<FunctionDecl>(
      loc, std::move(name), std::move(params), std::move(results),
      std::move(body), checkpointAttr);
  if (!sizes && !types)
    fn->dims = std::move(dims);
  return fn;
}

bool Parser::checkNotDim(const Name &name) {
  if (!(sizes && sizes->count(name.name)) &&
      !(types && types->count(name.name)))
    return true;
  diag.error(name.loc, "'" + name.name +
                           "' is a dimension parameter of "
                           "this function; a variable cannot "
                           "take its name");
  return false;
}

/// dims ::= '[' dim (',' dim)* ']'
/// dim  ::= IDENT (':' 'type')?
bool Parser::parseDimParams(std::vector<GenericParam> &dims) {
  consume(); // '['
  do {
    if (tok.is(TokenKind::ellipsis)) {
      // The leading dimensions: once, as in fn f[..., D](x: f32[..., D]).
      SMLoc loc = tok.getLoc();
      consume();
      if (llvm::any_of(dims, [](const GenericParam &p) { return p.isPack; })) {
        diag.error(loc, "'...' appears twice");
        return false;
      }
      dims.push_back(GenericParam{loc, kPackName.str(), false, true});
      continue;
    }
    Name dim;
    if (!expectIdentifier(dim, "a dimension name, as in fn f[B, D](...)"))
      return false;
    for (const GenericParam &other : dims)
      if (other.name == dim.name) {
        diag.error(dim.loc, "dimension '" + dim.name + "' appears twice");
        return false;
      }
    GenericParam param{dim.loc, dim.name, false};
    if (consumeIf(TokenKind::colon)) {
      Name kind;
      if (!expectIdentifier(kind, "'type' (an element type parameter)"))
        return false;
      if (kind.name != "type") {
        diag.error(kind.loc, "a generic parameter is a dimension (B) or an "
                             "element type (E: type), not '" +
                                 kind.name + "'");
        return false;
      }
      param.isType = true;
    }
    dims.push_back(std::move(param));
  } while (consumeIf(TokenKind::comma));
  return expect(TokenKind::r_square, "to end the dimension parameters");
}

/// derivative ::= 'fn' IDENT '=' ('grad' | 'value_and_grad' | 'vjp')
///                '(' IDENT (',' 'wrt' ':' '[' IDENT (',' IDENT)* ']')? ')' ';'
std::unique_ptr<Decl> Parser::parseDerivative(SMLoc loc, Name name) {
  consume(); // '='
  SMLoc kindLoc = tok.getLoc();
  RequestKind kind;
  if (tok.is(TokenKind::identifier) && tok.spelling == "grad")
    kind = RequestKind::grad;
  else if (tok.is(TokenKind::identifier) && tok.spelling == "value_and_grad")
    kind = RequestKind::value_and_grad;
  else if (tok.is(TokenKind::identifier) && tok.spelling == "vjp")
    kind = RequestKind::vjp;
  else {
    if (!tok.is(TokenKind::error))
      errorHere("expected grad, value_and_grad or vjp after '='");
    return nullptr;
  }
  consume();
  Name primal;
  if (!expect(TokenKind::l_paren, "after " + getRequestKindName(kind).str()) ||
      !expectIdentifier(primal, "the name of the function to differentiate"))
    return nullptr;
  std::vector<Name> wrt;
  bool explicitWrt = false;
  if (consumeIf(TokenKind::comma)) {
    Name label;
    if (!expectIdentifier(label, "'wrt'"))
      return nullptr;
    if (label.name != "wrt") {
      diag.error(label.loc, "unknown argument '" + label.name +
                                "'; a derivative request takes only wrt");
      return nullptr;
    }
    explicitWrt = true;
    if (!expect(TokenKind::colon, "after wrt") ||
        !expect(TokenKind::l_square, "to start the list of parameters"))
      return nullptr;
    if (!tok.is(TokenKind::r_square)) {
      do {
        Name param;
        if (!expectIdentifier(param, "a parameter name"))
          return nullptr;
        wrt.push_back(std::move(param));
      } while (consumeIf(TokenKind::comma));
    }
    if (!expect(TokenKind::r_square, "to end the list of parameters"))
      return nullptr;
  }
  if (!expect(TokenKind::r_paren) ||
      !expect(TokenKind::semicolon, "after the derivative request"))
    return nullptr;
  return std::make_unique<DerivativeDecl>(loc, std::move(name), kind, kindLoc,
                                          std::move(primal), std::move(wrt),
                                          explicitWrt);
}

/// rule ::= 'rrule' IDENT dims? params '->' results '{'
///            'forward' block
///            'pullback' params '->' results block
///          '}'
std::unique_ptr<Decl> Parser::parseRule() {
  SMLoc loc = tok.getLoc();
  consume(); // 'rrule'
  Name name;
  std::vector<GenericParam> dims;
  std::vector<Param> params, pullbackParams;
  std::vector<TypeWithLoc> results, pullbackResults;
  Block forward, pullback;
  if (!expectIdentifier(name, "the name of the function the rule is for") ||
      (tok.is(TokenKind::l_square) && !parseDimParams(dims)))
    return nullptr;
  // As in a generic function: the types may name the generic parameters,
  // and the blocks' lists may start with `...`; an instance binds them.
  bool generic = !sizes && !types;
  bool pack = generic && llvm::any_of(dims, [](const GenericParam &p) {
                return p.isPack;
              });
  auto parseSignature = [&](std::vector<Param> &ps,
                            std::vector<TypeWithLoc> &rs, const char *what) {
    dimParams = generic ? &dims : nullptr;
    bool parsed = parseParams(ps) && expect(TokenKind::arrow, what) &&
                  parseResultTypes(rs);
    dimParams = nullptr;
    return parsed;
  };
  auto parseRuleBlock = [&](Block &block) {
    genericPackBody = pack;
    bool parsed = parseBlock(block);
    genericPackBody = false;
    return parsed;
  };
  if (!parseSignature(params, results, "and the result types") ||
      !expect(TokenKind::l_brace, "to start the rule"))
    return nullptr;
  SMLoc forwardLoc = tok.getLoc();
  if (!expect(TokenKind::kw_forward, "to start the rule's forward block") ||
      !parseRuleBlock(forward))
    return nullptr;
  SMLoc pullbackLoc = tok.getLoc();
  if (!expect(TokenKind::kw_pullback, "after the forward block") ||
      !parseSignature(pullbackParams, pullbackResults,
                      "and the pullback's result types") ||
      !parseRuleBlock(pullback) ||
      !expect(TokenKind::r_brace, "to end the rule"))
    return nullptr;
  auto rule = std::make_unique<RuleDecl>(
      loc, std::move(name), std::move(params), std::move(results), forwardLoc,
      std::move(forward), pullbackLoc, std::move(pullbackParams),
      std::move(pullbackResults), std::move(pullback));
  if (generic)
    rule->dims = std::move(dims);
  return rule;
}

/// params ::= '(' (IDENT ':' type (',' IDENT ':' type)* ','?)? ')'
bool Parser::parseParams(std::vector<Param> &params) {
  if (!expect(TokenKind::l_paren, "to start the parameter list"))
    return false;
  while (!tok.is(TokenKind::r_paren)) {
    Param param;
    Name name;
    if (!expectIdentifier(name, "a parameter name") || !checkNotDim(name))
      return false;
    param.loc = name.loc;
    param.name = std::move(name.name);
    if (!expect(TokenKind::colon, "and the parameter's type"))
      return false;
    param.typeLoc = tok.getLoc();
    if (!parseType(param.type, &param.dims, &param.elemParam,
                   &param.recordName, &param.recordArgs))
      return false;
    params.push_back(std::move(param));
    if (!consumeIf(TokenKind::comma))
      break;
  }
  return expect(TokenKind::r_paren, "to end the parameter list");
}

/// results ::= type | '(' type (',' type)* ')'
bool Parser::parseResultTypes(std::vector<TypeWithLoc> &results) {
  bool parenthesized = consumeIf(TokenKind::l_paren);
  do {
    TypeWithLoc result{tok.getLoc(), {}, {}, {}, {}, {}, nullptr};
    if (!parseType(result.type, &result.dims, &result.elemParam,
                   &result.recordName, &result.recordArgs))
      return false;
    results.push_back(std::move(result));
  } while (parenthesized && consumeIf(TokenKind::comma));
  return !parenthesized || expect(TokenKind::r_paren, "to end the result types");
}

/// args ::= '[' arg (',' arg)* ']'   arg ::= elemtype | INT | IDENT
bool Parser::parseRecordArgs(std::vector<RecordArg> &args) {
  consume(); // '['
  do {
    RecordArg arg;
    arg.loc = tok.getLoc();
    std::string spelling = tok.spelling.str();
    uint64_t size;
    if (tok.isElementType()) {
      arg.isType = true;
      arg.value = int64_t(llvm::StringSwitch<ElemKind>(spelling)
                              .Case("f64", ElemKind::f64)
                              .Case("f16", ElemKind::f16)
                              .Case("bf16", ElemKind::bf16)
                              .Case("i32", ElemKind::i32)
                              .Case("i64", ElemKind::i64)
                              .Default(ElemKind::f32));
    } else if (tok.is(TokenKind::integer)) {
      if (tok.spelling.getAsInteger(10, size) || size == 0 ||
          size > uint64_t(kMaxElements))
        return errorHere("dimension size must be between 1 and 2^40, got " +
                         tok.spelling);
      arg.value = int64_t(size);
    } else if (tok.is(TokenKind::identifier)) {
      // In an instance, the enclosing function's parameters are bound.
      const GenericParam *known = nullptr;
      if (dimParams)
        for (const GenericParam &p : *dimParams)
          if (p.name == spelling && !p.isPack)
            known = &p;
      if (types && types->count(spelling)) {
        arg.isType = true;
        arg.value = int64_t(types->lookup(spelling));
      } else if (sizes && sizes->count(spelling)) {
        arg.value = sizes->lookup(spelling);
      } else if (known) {
        arg.name = spelling;
        arg.isType = known->isType;
      } else {
        return errorHere("unknown parameter '" + spelling +
                         "' in the arguments of a struct; they are element "
                         "types, sizes, or the generic parameters of the "
                         "declaration");
      }
    } else {
      return errorHere("expected an element type, a size or a generic "
                       "parameter as an argument of the struct, found " +
                       describe(tok));
    }
    consume();
    args.push_back(std::move(arg));
  } while (consumeIf(TokenKind::comma));
  return expect(TokenKind::r_square, "to end the struct's arguments");
}

/// type ::= ('f32' | 'f64' | 'f16' | 'bf16' | 'i32' | 'i64')
///          ('[' (dim (',' dim)*)? ']')?
///        | IDENT   (a struct)
/// dim  ::= INT | IDENT   (a dimension parameter of a generic function)
bool Parser::parseType(TensorType &type, DimNames *dims, std::string *elemParam,
                       std::string *recordName,
                       std::vector<RecordArg> *recordArgs) {
  auto param = [&](llvm::StringRef name) -> const GenericParam * {
    if (!dimParams)
      return nullptr;
    auto it = llvm::find_if(
        *dimParams, [&](const GenericParam &p) { return p.name == name; });
    return it == dimParams->end() ? nullptr : &*it;
  };
  if (tok.is(TokenKind::identifier)) {
    // An element type parameter: bound in an instance, else a placeholder.
    if (types && types->count(tok.spelling)) {
      type.elem = types->lookup(tok.spelling);
    } else if (const GenericParam *p = param(tok.spelling);
               p && p->isType && elemParam) {
      *elemParam = p->name;
      type.elem = ElemKind::f32;
    } else if (recordName && !peek().is(TokenKind::l_square)) {
      // A struct: Sema looks it up (structs may be declared later).
      *recordName = tok.spelling.str();
      consume();
      return true;
    } else if (recordName && recordArgs && !param(tok.spelling)) {
      // A generic struct with its arguments: Linear[f32, 64, O].
      *recordName = tok.spelling.str();
      consume();
      return parseRecordArgs(*recordArgs);
    } else {
      return errorHere("expected a type such as f32[64, 256] or f32, found " +
                       describe(tok));
    }
  } else {
    switch (tok.kind) {
    case TokenKind::kw_f32:
      type.elem = ElemKind::f32;
      break;
    case TokenKind::kw_f64:
      type.elem = ElemKind::f64;
      break;
    case TokenKind::kw_f16:
      type.elem = ElemKind::f16;
      break;
    case TokenKind::kw_bf16:
      type.elem = ElemKind::bf16;
      break;
    case TokenKind::kw_i32:
      type.elem = ElemKind::i32;
      break;
    case TokenKind::kw_i64:
      type.elem = ElemKind::i64;
      break;
    case TokenKind::error:
      return false;
    default:
      return errorHere("expected a type such as f32[64, 256] or f32, found " +
                       describe(tok));
    }
  }
  consume();
  if (!consumeIf(TokenKind::l_square))
    return true;
  int64_t elements = 1;
  DimNames names;
  if (tok.is(TokenKind::ellipsis)) {
    // The leading dimensions: their sizes in an instance, a placeholder in
    // a generic signature that declares them.
    SMLoc at = tok.getLoc();
    bool declared = dimParams && llvm::any_of(*dimParams, [](const GenericParam &p) {
                      return p.isPack;
                    });
    if (pack) {
      for (int64_t size : *pack) {
        elements *= size;
        type.shape.push_back(size);
      }
    } else if (declared) {
      type.shape.push_back(kPackDim);
      names.push_back(kPackName.str());
    } else {
      diag.error(at, "'...' stands for the leading dimensions of a generic "
                     "function that declares it, as in fn f[..., D](x: "
                     "f32[..., D])");
      return false;
    }
    consume();
    if (!consumeIf(TokenKind::comma))
      return expect(TokenKind::r_square, "to end the shape") &&
             (names.empty() || (*dims = std::move(names), true));
  }
  while (!tok.is(TokenKind::r_square)) {
    // A size: a literal, or a dimension parameter (bound in an instance,
    // symbolic in a generic signature).
    uint64_t size = 0;
    if (tok.is(TokenKind::identifier)) {
      std::string dim = tok.spelling.str();
      const GenericParam *p = param(dim);
      if (sizes && sizes->count(dim)) {
        size = sizes->lookup(dim);
      } else if (p && p->isType) {
        return errorHere("'" + dim +
                         "' is an element type parameter; a "
                         "dimension is a size");
      } else if (!dims || !p) {
        return errorHere("unknown dimension '" + dim +
                         "'; a generic function declares its dimensions "
                         "after its name, as in fn f[B](x: f32[B, 4])");
      } else {
        names.resize(type.shape.size());
        names.push_back(dim);
      }
    } else if (tok.is(TokenKind::ellipsis)) {
      return errorHere("'...' stands for the leading dimensions: it comes "
                       "first in a shape, as in f32[..., D]");
    } else if (!tok.is(TokenKind::integer)) {
      if (tok.is(TokenKind::error))
        return false;
      return errorHere("expected a dimension size (a positive integer), "
                       "found " + describe(tok));
    } else if (tok.spelling.getAsInteger(10, size) || size == 0 ||
               size > uint64_t(kMaxElements)) {
      return errorHere("dimension size must be between 1 and 2^40, got " +
                       tok.spelling);
    }
    if (size == 0) {
      type.shape.push_back(kSymbolicDim);
    } else {
      // Checked before multiplying: two sizes of 2^32 would overflow.
      if (elements > kMaxElements / int64_t(size))
        return errorHere("tensor has more than 2^40 elements");
      elements *= int64_t(size);
      type.shape.push_back(int64_t(size));
    }
    consume();
    if (!consumeIf(TokenKind::comma))
      break;
  }
  if (!names.empty()) {
    names.resize(type.shape.size());
    *dims = std::move(names);
  }
  return expect(TokenKind::r_square, "to end the shape");
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

/// block ::= '{' stmt* '}'
bool Parser::parseBlock(Block &block) {
  DepthGuard guard(*this);
  if (tooDeep())
    return false;
  block.loc = tok.getLoc();
  if (!expect(TokenKind::l_brace, "to start a block"))
    return false;
  while (!tok.is(TokenKind::r_brace)) {
    if (tok.is(TokenKind::eof))
      return expect(TokenKind::r_brace, "to end the block");
    StmtPtr stmt = parseStmt();
    if (!stmt)
      return false;
    block.stmts.push_back(std::move(stmt));
  }
  consume();
  return true;
}

/// stmt ::= let | assign | return | for | if | 'checkpoint' block | save
StmtPtr Parser::parseStmt() {
  switch (tok.kind) {
  case TokenKind::kw_let: return parseLet();
  case TokenKind::kw_return: return parseReturn();
  case TokenKind::kw_for: return parseFor();
  case TokenKind::kw_if: return parseIf();
  case TokenKind::kw_save: return parseSave();
  case TokenKind::identifier: return parseAssign();
  case TokenKind::kw_checkpoint: {
    SMLoc loc = tok.getLoc();
    consume();
    if (!tok.is(TokenKind::l_brace)) {
      if (!tok.is(TokenKind::error))
        errorHere("expected '{' after checkpoint: a statement-level "
                  "checkpoint takes a block; checkpoint(expr) is an "
                  "expression and must be bound with let");
      return nullptr;
    }
    Block body;
    if (!parseBlock(body))
      return nullptr;
    return std::make_unique<CheckpointStmt>(loc, std::move(body));
  }
  case TokenKind::error:
    return nullptr;
  default:
    errorHere("expected a statement (let, an assignment, return, for, if or "
              "checkpoint), found '" + tok.spelling + "'");
    return nullptr;
  }
}

/// let ::= 'let' (IDENT | '(' IDENT (',' IDENT)* ')') '=' expr ';'
StmtPtr Parser::parseLet() {
  SMLoc loc = tok.getLoc();
  consume();
  std::vector<Name> names;
  bool destructure = consumeIf(TokenKind::l_paren);
  do {
    Name name;
    if (!expectIdentifier(name, "a variable name") || !checkNotDim(name))
      return nullptr;
    names.push_back(std::move(name));
  } while (destructure && consumeIf(TokenKind::comma));
  if (destructure && !expect(TokenKind::r_paren, "to end the names"))
    return nullptr;
  if (!expect(TokenKind::equal, "after the name"))
    return nullptr;
  ExprPtr value = parseExpr();
  if (!value || !expect(TokenKind::semicolon, "after the expression"))
    return nullptr;
  return std::make_unique<LetStmt>(loc, std::move(names), destructure,
                                   std::move(value));
}

/// assign ::= IDENT ('.' IDENT)* '=' expr ';'
StmtPtr Parser::parseAssign() {
  Name target{tok.getLoc(), tok.spelling.str()};
  consume();
  std::vector<Name> fields;
  while (consumeIf(TokenKind::dot)) {
    Name field;
    if (!expectIdentifier(field, "a field name"))
      return nullptr;
    fields.push_back(std::move(field));
  }
  if (!tok.is(TokenKind::equal)) {
    if (!tok.is(TokenKind::error))
      errorHere("expected '=' to assign to '" + target.name +
                "'; an expression alone is not a statement");
    return nullptr;
  }
  consume();
  ExprPtr value = parseExpr();
  if (!value || !expect(TokenKind::semicolon, "after the expression"))
    return nullptr;
  return std::make_unique<AssignStmt>(target.loc, std::move(target),
                                      std::move(fields), std::move(value));
}

/// return ::= 'return' expr (',' expr)* ';'
StmtPtr Parser::parseReturn() {
  SMLoc loc = tok.getLoc();
  consume();
  std::vector<ExprPtr> values;
  do {
    ExprPtr value = parseExpr();
    if (!value)
      return nullptr;
    values.push_back(std::move(value));
  } while (consumeIf(TokenKind::comma));
  if (!expect(TokenKind::semicolon, "after the returned values"))
    return nullptr;
  return std::make_unique<ReturnStmt>(loc, std::move(values));
}

/// for ::= 'for' IDENT 'in' expr '..' expr block
/// The bounds are parsed as expressions so that Sema can say precisely why
/// a bound that is not an integer literal is rejected.
StmtPtr Parser::parseFor() {
  SMLoc loc = tok.getLoc();
  consume();
  Name var;
  if (!expectIdentifier(var, "a loop variable") || !checkNotDim(var) ||
      !expect(TokenKind::kw_in, "after the loop variable"))
    return nullptr;
  ExprPtr low = parseAdditive();
  if (!low || !expect(TokenKind::dotdot, "between the loop bounds, as in 0..N"))
    return nullptr;
  ExprPtr high = parseAdditive();
  if (!high)
    return nullptr;
  Block body;
  if (!parseBlock(body))
    return nullptr;
  return std::make_unique<ForStmt>(loc, std::move(var), std::move(low),
                                   std::move(high), std::move(body));
}

/// if ::= 'if' expr block ('else' (block | if))?
StmtPtr Parser::parseIf() {
  DepthGuard guard(*this);
  if (tooDeep())
    return nullptr;
  SMLoc loc = tok.getLoc();
  consume();
  ExprPtr cond = parseExpr();
  if (!cond)
    return nullptr;
  Block thenBlock;
  if (!parseBlock(thenBlock))
    return nullptr;
  std::optional<Block> elseBlock;
  if (consumeIf(TokenKind::kw_else)) {
    elseBlock.emplace();
    if (tok.is(TokenKind::kw_if)) {
      // `else if` is an else block holding one if statement.
      elseBlock->loc = tok.getLoc();
      StmtPtr nested = parseIf();
      if (!nested)
        return nullptr;
      elseBlock->stmts.push_back(std::move(nested));
    } else if (!parseBlock(*elseBlock)) {
      return nullptr;
    }
  }
  return std::make_unique<IfStmt>(loc, std::move(cond), std::move(thenBlock),
                                  std::move(elseBlock));
}

/// save ::= 'save' (IDENT (',' IDENT)*)? ';'
StmtPtr Parser::parseSave() {
  SMLoc loc = tok.getLoc();
  consume();
  std::vector<Name> names;
  if (!tok.is(TokenKind::semicolon)) {
    do {
      Name name;
      if (!expectIdentifier(name, "the name of a value to save"))
        return nullptr;
      names.push_back(std::move(name));
    } while (consumeIf(TokenKind::comma));
  }
  if (!expect(TokenKind::semicolon, "after the saved values"))
    return nullptr;
  return std::make_unique<SaveStmt>(loc, std::move(names));
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

/// expr ::= comparison
ExprPtr Parser::parseExpr() {
  DepthGuard guard(*this);
  if (tooDeep())
    return nullptr;
  return parseComparison();
}

/// comparison ::= additive (('<' | '<=' | '>' | '>=' | '==' | '!=') additive)?
ExprPtr Parser::parseComparison() {
  ExprPtr lhs = parseAdditive();
  if (!lhs)
    return nullptr;
  std::optional<BinaryOp> op;
  switch (tok.kind) {
  case TokenKind::less: op = BinaryOp::lt; break;
  case TokenKind::lesseq: op = BinaryOp::le; break;
  case TokenKind::greater: op = BinaryOp::gt; break;
  case TokenKind::greatereq: op = BinaryOp::ge; break;
  case TokenKind::eqeq: op = BinaryOp::eq; break;
  case TokenKind::noteq: op = BinaryOp::ne; break;
  default: return lhs;
  }
  SMLoc loc = tok.getLoc();
  consume();
  ExprPtr rhs = parseAdditive();
  if (!rhs)
    return nullptr;
  switch (tok.kind) {
  case TokenKind::less: case TokenKind::lesseq: case TokenKind::greater:
  case TokenKind::greatereq: case TokenKind::eqeq: case TokenKind::noteq:
    errorHere("comparisons do not chain; use parentheses");
    return nullptr;
  default:
    break;
  }
  unsigned tallest = std::max(lhs->height, rhs->height);
  auto node =
      std::make_unique<BinaryExpr>(loc, *op, std::move(lhs), std::move(rhs));
  if (!setHeight(*node, tallest))
    return nullptr;
  return node;
}

/// additive ::= multiplicative (('+' | '-') multiplicative)*
ExprPtr Parser::parseAdditive() {
  ExprPtr lhs = parseMultiplicative();
  while (lhs && (tok.is(TokenKind::plus) || tok.is(TokenKind::minus))) {
    BinaryOp op = tok.is(TokenKind::plus) ? BinaryOp::add : BinaryOp::sub;
    SMLoc loc = tok.getLoc();
    consume();
    ExprPtr rhs = parseMultiplicative();
    if (!rhs)
      return nullptr;
    unsigned tallest = std::max(lhs->height, rhs->height);
    lhs = std::make_unique<BinaryExpr>(loc, op, std::move(lhs), std::move(rhs));
    if (!setHeight(*lhs, tallest))
      return nullptr;
  }
  return lhs;
}

/// multiplicative ::= unary (('*' | '/' | '@') unary)*
ExprPtr Parser::parseMultiplicative() {
  ExprPtr lhs = parseUnary();
  while (lhs && (tok.is(TokenKind::star) || tok.is(TokenKind::slash) ||
                 tok.is(TokenKind::at))) {
    BinaryOp op = tok.is(TokenKind::star)    ? BinaryOp::mul
                  : tok.is(TokenKind::slash) ? BinaryOp::div
                                             : BinaryOp::matmul;
    SMLoc loc = tok.getLoc();
    consume();
    ExprPtr rhs = parseUnary();
    if (!rhs)
      return nullptr;
    unsigned tallest = std::max(lhs->height, rhs->height);
    lhs = std::make_unique<BinaryExpr>(loc, op, std::move(lhs), std::move(rhs));
    if (!setHeight(*lhs, tallest))
      return nullptr;
  }
  return lhs;
}

/// unary ::= '-' unary | postfix
/// A minus directly before a number literal becomes part of the literal.
ExprPtr Parser::parseUnary() {
  if (!tok.is(TokenKind::minus))
    return parsePostfix();
  DepthGuard guard(*this);
  if (tooDeep())
    return nullptr;
  SMLoc loc = tok.getLoc();
  consume();
  ExprPtr operand = parseUnary();
  if (!operand)
    return nullptr;
  if (auto *number = llvm::dyn_cast<NumberExpr>(operand.get())) {
    std::string spelling = number->spelling;
    spelling = spelling.front() == '-' ? spelling.substr(1) : "-" + spelling;
    return std::make_unique<NumberExpr>(loc, std::move(spelling),
                                        number->isInteger);
  }
  unsigned tallest = operand->height;
  auto node = std::make_unique<UnaryExpr>(loc, std::move(operand));
  if (!setHeight(*node, tallest))
    return nullptr;
  return node;
}

/// postfix ::= primary ('[' entry (',' entry)* ']' | '.' IDENT)*
/// entry   ::= expr | expr? ':' expr?
ExprPtr Parser::parsePostfix() {
  ExprPtr base = parsePrimary();
  while (base && (tok.is(TokenKind::l_square) || tok.is(TokenKind::dot))) {
    SMLoc loc = tok.getLoc();
    if (consumeIf(TokenKind::dot)) {
      Name field;
      if (!expectIdentifier(field, "a field name after '.'"))
        return nullptr;
      unsigned tallest = base->height;
      SMLoc start = base->getLoc();
      base = std::make_unique<FieldExpr>(start, std::move(base),
                                         std::move(field.name), field.loc);
      if (!setHeight(*base, tallest))
        return nullptr;
      continue;
    }
    consume();
    std::vector<IndexEntry> entries;
    unsigned tallest = base->height;
    do {
      IndexEntry entry;
      entry.loc = tok.getLoc();
      auto bound = [&](ExprPtr &into) {
        if (tok.is(TokenKind::colon) || tok.is(TokenKind::comma) ||
            tok.is(TokenKind::r_square))
          return true;
        into = parseExpr();
        if (into)
          tallest = std::max(tallest, into->height);
        return into != nullptr;
      };
      if (!bound(entry.start))
        return nullptr;
      if (consumeIf(TokenKind::colon)) {
        entry.isRange = true;
        if (!bound(entry.end))
          return nullptr;
      } else if (!entry.start) {
        errorHere("expected an index or a range such as k:k+2 before " +
                  describe(tok));
        return nullptr;
      }
      entries.push_back(std::move(entry));
    } while (consumeIf(TokenKind::comma));
    if (!expect(TokenKind::r_square, "to end the index"))
      return nullptr;
    base =
        std::make_unique<IndexExpr>(loc, std::move(base), std::move(entries));
    if (!setHeight(*base, tallest))
      return nullptr;
  }
  return base;
}

/// primary ::= INT | NUMBER | 'true' | 'false' | elemtype
///           | IDENT | IDENT '(' args ')' | 'checkpoint' '(' expr ')'
///           | '(' expr (',' expr)* ')' | '[' (expr (',' expr)*)? ']'
ExprPtr Parser::parsePrimary() {
  SMLoc loc = tok.getLoc();
  switch (tok.kind) {
  case TokenKind::integer:
  case TokenKind::number: {
    auto number = std::make_unique<NumberExpr>(loc, tok.spelling.str(),
                                               tok.is(TokenKind::integer));
    consume();
    return number;
  }
  case TokenKind::kw_true:
  case TokenKind::kw_false: {
    bool value = tok.is(TokenKind::kw_true);
    consume();
    return std::make_unique<BoolExpr>(loc, value);
  }
  case TokenKind::kw_f32: consume(); return std::make_unique<ElemTypeExpr>(loc, ElemKind::f32);
  case TokenKind::kw_f64: consume(); return std::make_unique<ElemTypeExpr>(loc, ElemKind::f64);
  case TokenKind::kw_f16: consume(); return std::make_unique<ElemTypeExpr>(loc, ElemKind::f16);
  case TokenKind::kw_bf16: consume(); return std::make_unique<ElemTypeExpr>(loc, ElemKind::bf16);
  case TokenKind::kw_i32: consume(); return std::make_unique<ElemTypeExpr>(loc, ElemKind::i32);
  case TokenKind::kw_i64: consume(); return std::make_unique<ElemTypeExpr>(loc, ElemKind::i64);
  case TokenKind::identifier: {
    std::string name = tok.spelling.str();
    consume();
    // In an instance, a dimension parameter is its size: `rsqrt(D)`,
    // `reshape(x, [B, 4, D])`, `for i in 0..N`.
    if (sizes && sizes->count(name) && !tok.is(TokenKind::l_paren))
      return std::make_unique<NumberExpr>(
          loc, std::to_string(sizes->lookup(name)), /*isInteger=*/true);
    if (types && types->count(name) && !tok.is(TokenKind::l_paren))
      return std::make_unique<ElemTypeExpr>(loc, types->lookup(name));
    if (!tok.is(TokenKind::l_paren))
      return std::make_unique<VarExpr>(loc, std::move(name));
    std::vector<CallArg> args;
    if (!parseCallArgs(args))
      return nullptr;
    unsigned tallest = 0;
    for (const CallArg &arg : args)
      tallest = std::max(tallest, arg.value->height);
    auto call =
        std::make_unique<CallExpr>(loc, std::move(name), std::move(args));
    if (!setHeight(*call, tallest))
      return nullptr;
    return call;
  }
  case TokenKind::kw_checkpoint: {
    consume();
    if (!expect(TokenKind::l_paren, "after checkpoint in an expression"))
      return nullptr;
    ExprPtr body = parseExpr();
    if (!body || !expect(TokenKind::r_paren, "to end checkpoint(...)"))
      return nullptr;
    unsigned tallest = body->height;
    auto checkpoint = std::make_unique<CheckpointExpr>(loc, std::move(body));
    if (!setHeight(*checkpoint, tallest))
      return nullptr;
    return checkpoint;
  }
  case TokenKind::l_paren:
    return parseParenthesized();
  case TokenKind::l_square:
    return parseList();
  case TokenKind::error:
    return nullptr;
  case TokenKind::eof:
    errorHere("expected an expression, found end of file");
    return nullptr;
  default:
    errorHere("expected an expression, found '" + tok.spelling + "'");
    return nullptr;
  }
}

/// '(' expr ')' is grouping; '(' expr (',' expr)+ ')' is a tuple.
ExprPtr Parser::parseParenthesized() {
  SMLoc loc = tok.getLoc();
  consume();
  std::vector<ExprPtr> elements;
  do {
    ExprPtr element = parseExpr();
    if (!element)
      return nullptr;
    elements.push_back(std::move(element));
  } while (consumeIf(TokenKind::comma));
  if (!expect(TokenKind::r_paren, "to close the parenthesis"))
    return nullptr;
  if (elements.size() == 1)
    return std::move(elements.front());
  unsigned tallest = 0;
  for (const ExprPtr &element : elements)
    tallest = std::max(tallest, element->height);
  auto tuple = std::make_unique<TupleExpr>(loc, std::move(elements));
  if (!setHeight(*tuple, tallest))
    return nullptr;
  return tuple;
}

ExprPtr Parser::parseList() {
  SMLoc loc = tok.getLoc();
  consume();
  std::vector<ExprPtr> elements;
  // `[..., H, D]`: in an instance, the leading dimensions' sizes. A
  // generic body is only checked in its instances, where they are bound.
  if (tok.is(TokenKind::ellipsis)) {
    SMLoc at = tok.getLoc();
    if (!pack && !genericPackBody) {
      diag.error(at, "'...' stands for the leading dimensions of a generic "
                     "function that declares it, as in fn f[..., D](x: "
                     "f32[..., D])");
      return nullptr;
    }
    consume();
    if (pack)
      for (int64_t size : *pack)
        elements.push_back(std::make_unique<NumberExpr>(
            at, std::to_string(size), /*isInteger=*/true));
    if (!consumeIf(TokenKind::comma) && !tok.is(TokenKind::r_square))
      return expect(TokenKind::r_square, "to end the list"), nullptr;
  }
  while (!tok.is(TokenKind::r_square)) {
    ExprPtr element = parseExpr();
    if (!element)
      return nullptr;
    elements.push_back(std::move(element));
    if (!consumeIf(TokenKind::comma))
      break;
  }
  if (!expect(TokenKind::r_square, "to end the list"))
    return nullptr;
  unsigned tallest = 0;
  for (const ExprPtr &element : elements)
    tallest = std::max(tallest, element->height);
  auto list = std::make_unique<ListExpr>(loc, std::move(elements));
  if (!setHeight(*list, tallest))
    return nullptr;
  return list;
}

/// args ::= '(' (arg (',' arg)*)? ')'    arg ::= (IDENT ':')? expr
bool Parser::parseCallArgs(std::vector<CallArg> &args) {
  consume(); // '('
  while (!tok.is(TokenKind::r_paren)) {
    CallArg arg;
    arg.loc = tok.getLoc();
    if (tok.is(TokenKind::identifier) && peek().is(TokenKind::colon)) {
      arg.name = tok.spelling.str();
      consume();
      consume();
    }
    arg.value = parseExpr();
    if (!arg.value)
      return false;
    args.push_back(std::move(arg));
    if (!consumeIf(TokenKind::comma))
      break;
  }
  return expect(TokenKind::r_paren, "to end the arguments");
}
