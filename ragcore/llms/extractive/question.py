"""What a question asks, read from its words alone: its parts and its form.

``question_parts`` splits a question that asks several things ("Who is responsible for the
move, and what is the budget?", "How old were Mora and Rivera?") into one part per thing;
``asks_one_thing`` says whether one phrase can answer it (a lead-in clause such as "In 2007,"
and names joined outside the subject, "Who rescued Scout and Jem?", ask one thing). The
form predicates say what kind of sentence answers it: ``asks_for_number`` ("how many", "when"),
``asks_for_person`` ("who"), ``asks_for_list`` ("what are the rules", "which methods"), and
``subject_of`` (the X of "what is X", "how is X written"). The sentence side of each check is
here too (``has_number``, ``has_new_name``, ``enumerates``, ``defines``, ``restates``), so the
ranker (``rank``) only weighs them.

``without_source_words`` reads "What did the speech say about Ukraine?" as "What did it say
about Ukraine?": "the speech" names where to look, not what to find, and no sentence of the
speech says "speech". Left in, such words weighed as much as the topic (a rare word among the
passages weighs more), so the sentences about Ukraine scored under the "not found" floor.
"""

from __future__ import annotations

import re

from ...search.lexical import terms, words

_WH = r"(?:what|how|who|whom|whose|when|where|which|why)"
_AUX = r"(?:is|are|was|were|do|does|did|can|could|should|will|would|has|have|had|may|must)"
_CLAUSE_BREAK = re.compile(
    rf"\s*;\s*|\?\s+|,?\s+(?:and|but|also|plus)\s+(?={_WH}\b|{_AUX}\b)|,\s+(?={_WH}\b)", re.I
)
_NUMBER_QUESTION = re.compile(
    r"\bhow (?:many|much|old|long|far|big|large|often|tall|high|fast|soon)\b|"
    r"\b(?:what|which) (?:age|year|date|percentage|number|price|rate|size|amount|salary|time)\b|"
    r"\bwhen\b|\bat what\b", re.I
)
_DEFINITION_QUESTION = re.compile(
    r"^\s*what (?:is|are) (?:an? |the )?(?P<subject>[^?]+?)\??$", re.I
)
_MANNER_QUESTION = re.compile(
    r"^\s*how (?:is|are|was|were) (?:an? |the )?(?P<subject>.+?) \w+(?:ed|en)\b", re.I
)
_COUNT = r"(?:two|three|four|five|six|seven|eight|nine|ten|several|\d{1,2})"  # not a year
# "methods", not "process", "status" or "basis"; lower case: "James" (Bond) names one thing
_PLURAL = r"(?-i:[a-z]\w+s)(?<!ss)(?<!us)(?<!is)"
# a word before the plural a question asks about: not "of" ("What percentage of voters ...")
_MODIFIER = r"(?!(?:of|for|in|on|to|from|about|with|by|at)\b)[\w-]+"
_LIST_QUESTION = re.compile(
    r"^\s*(?:what|which) (?:are|were)\b|^\s*what (?:kinds|types|sorts) of\b|"
    r"^\s*(?:list|name|enumerate)\b|"
    # "Which countries ...", "Which HTTP methods are ...": not "Which actor plays ...", where
    # the word in -s is the verb of a one-thing question
    rf"\bwhich {_PLURAL}\b|\bwhich (?:[\w-]+ ){{1,3}}{_PLURAL} (?:are|were|have|had|do|did|can|"
    r"could|will|would|should|may|might|must|does)\b|"
    # an order asks for the things in it ("In what order should imports be grouped?")
    r"\b(?:in )?(?:what|which) order\b|"
    # "What tools does the agency publish?", "What odd things did he ask?": a plural "what"
    # asks about (a modifier or two before it), before its verb
    rf"^\s*what (?:{_MODIFIER} ){{0,2}}{_PLURAL} (?:are|were|have|had|do|did|does|can|will|"
    r"should|must)\b|"
    # ... with what the plural is of or for ("What measures against gun violence did ...?",
    # "What assets of the oligarchs will be seized?")
    rf"^\s*what (?:{_MODIFIER} ){{0,2}}{_PLURAL} (?:of|for|against|in|on|to|from|about|with|by|at|"
    r"between|under) (?:[\w'’-]+ ){1,4}(?:are|were|have|had|do|did|does|can|will|should|"
    r"must)\b|"
    # a count the question asks for ("What two forms ...", "Who were three visitors ...",
    # "which 3 musicians"), not one it mentions ("held every two years", "direct two films")
    rf"\b(?:what|which|were|are|name|list)\s+(?:the\s+)?{_COUNT}\s+(?:\w+\s+)?\w+s\b", re.I
)
_ENUMERATION = re.compile(
    r":\s*\S[^:]*[,;][^:]*[,;]|\(i+\)|\b\w+, \w+,? and \w+|(?:\b[\w-]+(?: [\w-]+)?, ){2,}[\w-]+"
)
_PERSON_QUESTION = re.compile(r"^\s*(?:who|whom|whose)\b", re.I)
_NUMBER = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"forty|fifty|hundred|thousand|million|billion|dozen|half)\b", re.I
)
_COPULA = re.compile(r"\b(?:is|are|was|means|refers to|describes|defines)\b", re.I)
# A question's reference to the documents themselves: "the speech", "this document", "the
# author" as the one who says, tells or writes; "in the text", "according to the article".
_SOURCE_NOUN = (
    r"(?:speech|address|text|document|article|paper|report|book|file|chapter|section|passage|"
    r"page|letter|e-?mail|essay|memo|manual|guide|transcript|story|post|slides?|presentation|"
    r"spreadsheet|pdf|author|writer|documents|files|texts|passages|pages)"
)
_SOURCE = rf"(?:the|this|that|these|those|my|our|your)\s+{_SOURCE_NOUN}"
_SAYS = (r"(?:say|says|said|tell|tells|told|mention|mentions|mentioned|write|writes|wrote|"
         r"state|states|stated|claim|claims|claimed|note|notes|noted|report|reports|reported|"
         r"describe|describes|described|discuss|discusses|discussed|cover|covers|covered)")
_SOURCE_AS_SAYER = re.compile(rf"\b{_SOURCE}(?=\s+(?:(?:also|really|actually)\s+)?{_SAYS}\b)",
                              re.I)
_SOURCE_AS_PLACE = re.compile(rf"(?:,\s*)?\b(?:according to|in|from)\s+{_SOURCE}\b(?:\s*,)?",
                              re.I)
_ASKS = re.compile(rf"\b{_WH}\b", re.I)
_SKIP_AFTER_AND = {"a", "an", "the", "in", "on", "at", "for", "of", "to", "with", "from", "by"}


def question_parts(question: str) -> list[str]:
    """The parts of a question that each need an answer: clauses ("..., and what is the
    budget?"), then conjoined names in one clause ("How old were Mora and Rivera?")."""
    parts: list[str] = []
    for clause in _CLAUSE_BREAK.split(question.strip()):
        clause = clause.strip(" ,?")
        if len(terms(clause)) >= 1:
            parts.extend(_split_conjunction(clause))
    return parts or [question]


def asks_one_thing(question: str) -> bool:
    """Whether one phrase can answer ``question``: one clause asks (a leading "In 2007," or
    "According to Lee," asks nothing), and what it joins with "and" is not the subject of its
    verb nor two conditions ("How old were Mora and Rivera?" asks two ages, "What happens in
    a debug build and in a release build?" two outcomes, "Who rescued Scout and Jem?" one
    person, "Which reviewer called it melodramatic and contrived?" one reviewer)."""
    asking = [c for c in _CLAUSE_BREAK.split(question.strip()) if _ASKS.search(c)]
    if len(asking) != 1:
        return len(question_parts(question)) == 1
    return not _joins_two_asks(asking[0].strip(" ,?"))


def _joins_two_asks(clause: str) -> bool:
    """Whether ``clause`` joins two subjects with "and" right after its auxiliary verb, or
    two conditions ("... in a debug build and in a release build?")."""
    if len(_split_conjunction(clause)) < 2:
        return False
    tokens = [t.lower() for t in clause.split()]
    left = tokens.index("and")
    if left + 1 < len(tokens) and tokens[left + 1] in _SKIP_AFTER_AND - {"a", "an", "the"}:
        return True
    before = [t for t in tokens[:_run_start(tokens, left)] if t not in ("the", "a", "an")]
    return bool(before) and re.fullmatch(_AUX, before[-1]) is not None


def _run_start(tokens: list[str], at: int) -> int:
    """Where the run of content words ending just before ``tokens[at]`` begins."""
    while at > 0 and terms(tokens[at - 1]):
        at -= 1
    return at


def without_source_words(question: str) -> str:
    """``question`` without its words for the documents it asks of: "What did the speech say
    about Ukraine?" -> "What did it say about Ukraine?", "What is said in the report about
    costs?" -> "What is said about costs?". A named document ("PEP 8") is kept: it is a topic."""
    unframed = _SOURCE_AS_SAYER.sub(_pronoun, question)
    unframed = _SOURCE_AS_PLACE.sub("", unframed)
    unframed = re.sub(r"\s{2,}", " ", unframed).strip()
    return unframed if terms(unframed) else question


def _pronoun(match: re.Match[str]) -> str:
    determiner, noun = match.group(0).lower().split()
    plural = determiner in ("these", "those") or (noun.endswith("s") and noun != "address")
    return "they" if plural else "it"


def _split_conjunction(clause: str) -> list[str]:
    """"How old were A B and C D" -> ["How old were A B", "How old were C D"]."""
    tokens = clause.split()
    lowered = [t.lower() for t in tokens]
    if "and" not in lowered:
        return [clause]
    at = lowered.index("and")
    left = _run_start(tokens, at)
    if left == at:
        return [clause]
    start = at + 1
    while start < len(tokens) and lowered[start] in _SKIP_AFTER_AND:
        start += 1
    capitalized = all(t[:1].isupper() for t in tokens[left:at])
    end = start
    while end < len(tokens) and terms(tokens[end]) and (
        not capitalized or tokens[end][:1].isupper()
    ):
        end += 1
    if end == start:
        return [clause]
    before, after = tokens[:left], tokens[end:]
    first = " ".join(before + tokens[left:at] + after)
    second = " ".join(before + tokens[start:end] + after)
    return [first, second]


def asks_for_list(query: str) -> bool:
    """Whether the query asks for several things ("What are the rules ...?")."""
    return bool(_LIST_QUESTION.search(query))


def asks_for_number(query: str) -> bool:
    """Whether the answer is a number, an amount or a date ("how many", "when")."""
    return bool(_NUMBER_QUESTION.search(query))


def asks_for_person(query: str) -> bool:
    """Whether the query asks who."""
    return bool(_PERSON_QUESTION.match(query))


def has_number(sentence: str, query: str) -> bool:
    """Whether ``sentence`` holds a number other than those the query names ("PEP 8")."""
    return bool(_NUMBER.search(_without(sentence, query)))


def enumerates(sentence: str) -> bool:
    """Whether ``sentence`` lists things ("GET, HEAD, PUT and DELETE", "(i) ... (ii) ...")."""
    return bool(_ENUMERATION.search(sentence))


def restates(sentence: str, query: str) -> bool:
    """Whether ``sentence`` only repeats the query ("I have a plan to fight inflation"): it
    adds at most one word in four, and no number or name."""
    own = set(terms(sentence))
    new = own - set(terms(query))
    if not own or len(new) > max(1, len(own) // 4):
        return False
    return not (has_number(sentence, query) or has_new_name(sentence, query))


def _without(sentence: str, query: str) -> str:
    """``sentence`` without the numbers the query itself mentions ("PEP 8", "RFC 2616")."""
    for number in re.findall(r"\d+", query):
        sentence = re.sub(rf"\b{number}\b", "", sentence)
    return sentence


def has_new_name(sentence: str, query: str) -> bool:
    """Whether ``sentence`` names someone or something (a capitalized word past its first)
    the query does not."""
    asked = {w.lower() for w in words(query)}
    names = [w for w in words(sentence)[1:] if w[:1].isupper() and w.lower() not in asked]
    return bool(names)


def subject_of(question: str) -> str:
    """What a "what is X" / "how is X done" question is about ("" for other questions)."""
    match = _DEFINITION_QUESTION.match(question) or _MANNER_QUESTION.match(question)
    return match.group("subject") if match else ""


def defines(sentence: str, subject: str) -> bool:
    """Whether ``sentence`` reads "<subject> is/means ...", its subject before the verb."""
    subject_terms = set(terms(subject))
    verb = _COPULA.search(sentence)
    if not subject_terms or not verb:
        return False
    return subject_terms <= set(terms(sentence[: verb.start()]))


# "What does SDLC stand for?": the acronym asked about (``retrieval.acronyms`` finds where the
# documents spell it out; the grounding verdict lets its short answer name it).
_ACRONYM = r"(?P<acronym>[A-Z][A-Za-z0-9&]*[A-Z0-9][A-Za-z0-9&]*)"
_ACRONYM_ASKS = (
    rf"\bwhat\s+(?:does|do|did)\s+(?:the\s+)?(?:acronym\s+|abbreviation\s+)?\W?{_ACRONYM}\W?\s+"
    r"(?:stand|stands)\s+for\b",
    rf"\bwhat\s+(?:does|do)\s+(?:the\s+)?(?:acronym|abbreviation)\s+\W?{_ACRONYM}\W?\s+mean\b",
    rf"\bwhat\s+is\s+\W?{_ACRONYM}\W?\s+(?:short|an?\s+(?:acronym|abbreviation))\s+for\b",
    rf"\b(?:what\s+is\s+)?the\s+(?:full\s+(?:form|name)|expansion|long\s+form)\s+of\s+"
    rf"(?:the\s+)?(?:acronym\s+)?\W?{_ACRONYM}\b",
    rf"^\s*(?:expand|spell\s+out)\s+(?:the\s+)?(?:acronym\s+)?\W?{_ACRONYM}\b",
)
_ACRONYM_ASKED = [re.compile(p, re.IGNORECASE) for p in _ACRONYM_ASKS]


def asked_acronym(question: str) -> str | None:
    """The acronym ``question`` asks the meaning of ("What does SDLC stand for?" -> "SDLC"),
    or None. The acronym is a word of two or more letters, at least two of them capitals."""
    for pattern in _ACRONYM_ASKED:
        match = pattern.search(question)
        if match and sum(c.isupper() for c in match.group("acronym")) >= 2:
            return match.group("acronym")
    return None
