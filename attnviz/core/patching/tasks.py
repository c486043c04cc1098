"""Generated sets of minimal pairs (``attnviz patch --task NAME``), written from templates here and kept to the words
the model knows: each English word in its source vocabulary, each answer one token of its output.

- ``gender``: "he is tired ." against "she is tired ." — the pronoun the translation starts with, il against elle
  (both directions: he clean and she clean).
- ``agreement``: the same sentences, the adjective's form after the pronoun: fatiguée against fatigué where the clean
  side says she (read after the clean translation's "elle est"), and the reverse.
- ``number``: "the boy can swim ." against "the boys can swim ." — the French verb's form, peut against peuvent
  (must): the English verb is the same for both, only the subject's number differs.
- ``ioi``: for an English decoder-only folder, the indirect-object sentences of Wang et al. 2022: "When Mary and John
  went to the store, John gave a drink to" (answer Mary, alternative John) against the same sentence with Mary as
  the giver; names that are one token of the folder's tokenizer (with the space before them).

Pairs come in a seeded order and at most :data:`MOST_PAIRS` of them.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from attnviz.core.layout import Capability
from attnviz.core.patching.pairs import MinimalPair, PairsError
from attnviz.i18n import tr

MOST_PAIRS = 400
SEED = 58
LEAST_PAIRS = 20  # a task the model's vocabulary leaves fewer pairs of is refused

# (English, French masculine, French feminine): adjectives whose French form agrees with the subject
ADJECTIVES = (
    ("tired", "fatigué", "fatiguée"), ("happy", "heureux", "heureuse"), ("ready", "prêt", "prête"),
    ("busy", "occupé", "occupée"), ("sure", "sûr", "sûre"), ("small", "petit", "petite"), ("tall", "grand", "grande"),
    ("married", "marié", "mariée"), ("surprised", "surpris", "surprise"), ("jealous", "jaloux", "jalouse"),
    ("lazy", "paresseux", "paresseuse"), ("serious", "sérieux", "sérieuse"), ("curious", "curieux", "curieuse"),
    ("nervous", "nerveux", "nerveuse"), ("lucky", "chanceux", "chanceuse"), ("strong", "fort", "forte"),
    ("proud", "fier", "fière"), ("kind", "gentil", "gentille"), ("smart", "intelligent", "intelligente"),
    ("alone", "seul", "seule"), ("dead", "mort", "morte"), ("asleep", "endormi", "endormie"),
    ("awake", "réveillé", "réveillée"), ("worried", "inquiet", "inquiète"), ("excited", "excité", "excitée"),
    ("scared", "effrayé", "effrayée"), ("disappointed", "déçu", "déçue"), ("satisfied", "satisfait", "satisfaite"),
    ("exhausted", "épuisé", "épuisée"), ("crazy", "fou", "folle"), ("beautiful", "beau", "belle"),
    ("old", "vieux", "vieille"), ("angry", "fâché", "fâchée"), ("hungry", "affamé", "affamée"),
    ("embarrassed", "embarrassé", "embarrassée"), ("generous", "généreux", "généreuse"),
    ("dangerous", "dangereux", "dangereuse"), ("drunk", "soûl", "soûle"), ("free", "libre", "libre"),
)
GENDER_TEMPLATES = ("{subject} is {adjective} .", "{subject} was {adjective} .", "{subject} is very {adjective} .",
                    "{subject} is not {adjective} .", "{subject} looks {adjective} .", "{subject} seems {adjective} .",
                    "{subject} is so {adjective} .", "{subject} was very {adjective} .")
# (singular, plural) subjects whose plural is one word
NOUNS = (("boy", "boys"), ("girl", "girls"), ("cat", "cats"), ("dog", "dogs"), ("student", "students"),
         ("teacher", "teachers"), ("child", "children"), ("man", "men"), ("woman", "women"), ("doctor", "doctors"),
         ("friend", "friends"), ("bird", "birds"), ("player", "players"), ("soldier", "soldiers"),
         ("brother", "brothers"), ("sister", "sisters"), ("kid", "kids"), ("baby", "babies"),
         ("worker", "workers"), ("guest", "guests"))
# (English modal or auxiliary, French singular, French plural, the verbs that follow it)
NUMBER_VERBS = (("can", "peut", "peuvent", ("swim", "run", "sing", "dance", "wait", "come", "help", "leave", "read",
                                            "write", "cook", "drive", "win", "stay", "go", "see", "eat", "sleep")),
                ("must", "doit", "doivent", ("leave", "wait", "stay", "go", "work", "eat", "sleep", "come", "help",
                                             "study", "listen", "read")))
NAMES = ("Mary", "John", "Tom", "James", "Anna", "Paul", "Sarah", "David", "Kate", "Mark", "Lisa", "Peter", "Emma",
         "Jack", "Alice", "Bob", "Dan", "Amy", "Mike", "Laura", "Sam", "Ben", "Max", "Lucy", "Chris", "Jane", "Eric",
         "Rachel", "Adam", "Sophie")
IOI_TEMPLATES = ("When {a} and {b} went to the store, {s} gave a drink to",
                 "When {a} and {b} went to the park, {s} gave a ball to",
                 "After {a} and {b} went to the school, {s} gave a book to",
                 "When {a} and {b} got a snack at the office, {s} decided to give it to",
                 "While {a} and {b} were working at the garden, {s} gave a flower to",
                 "Then, {a} and {b} had a long argument, and afterwards {s} said to",
                 "When {a} and {b} arrived at the house, {s} handed a key to",
                 "After the lunch, {a} and {b} went to the beach. {s} gave a shell to")
TASKS = ("gender", "agreement", "number", "ioi")


def _limited(pairs: list[MinimalPair], task: str) -> list[MinimalPair]:
    if len(pairs) < LEAST_PAIRS:
        raise PairsError(tr("--task {task}: the model's vocabulary leaves {count} pairs (at least {least} are "
                            "needed)").format(task=task, count=len(pairs), least=LEAST_PAIRS))
    random.Random(SEED).shuffle(pairs)
    return pairs[:MOST_PAIRS]


def _knows(loaded: Any) -> tuple[Callable[[str], bool], Callable[[str], bool]]:
    """(does the source vocabulary have this English word, is this one token of the output vocabulary)."""
    src, tgt = loaded.src_vocab, loaded.tgt_vocab
    return (lambda word: word in src and word not in ("<unk>", "<pad>")), (lambda word: word in tgt)


def _gender(loaded: Any, agreement: bool) -> list[MinimalPair]:
    english, french = _knows(loaded)
    pairs = []
    for word, masculine, feminine in ADJECTIVES:
        if not english(word) or (agreement and (masculine == feminine or not (french(masculine) and french(feminine)))):
            continue
        for template in GENDER_TEMPLATES:
            he, she = template.format(subject="he", adjective=word), template.format(subject="she", adjective=word)
            if agreement:
                pairs += [MinimalPair(he, she, masculine, feminine), MinimalPair(she, he, feminine, masculine)]
            else:
                pairs += [MinimalPair(he, she, "il", "elle"), MinimalPair(she, he, "elle", "il")]
    if not all(english(w) for w in ("he", "she", "is", "was", "very", "not", "looks", "seems", "so")) or not (
            french("il") and french("elle")):
        return []
    return pairs


def _number(loaded: Any) -> list[MinimalPair]:
    english, french = _knows(loaded)
    pairs = []
    for singular, plural in NOUNS:
        if not (english(singular) and english(plural)):
            continue
        for modal, one, many, verbs in NUMBER_VERBS:
            if not (english(modal) and french(one) and french(many)):
                continue
            for verb in verbs:
                if not english(verb):
                    continue
                a, b = f"the {singular} {modal} {verb} .", f"the {plural} {modal} {verb} ."
                pairs += [MinimalPair(a, b, one, many), MinimalPair(b, a, many, one)]
    return pairs


def _ioi(loaded: Any) -> list[MinimalPair]:
    tokenizer = getattr(loaded.src_vocab, "tokenizer", None)
    if tokenizer is None or not (loaded.offers(Capability.DECODER) and loaded.shared_rows):
        raise PairsError(tr("--task ioi is for a Hugging Face decoder-only folder (GPT-2, Llama, Qwen, "
                            "Gemma, Mistral …) that reads English"))
    names = [n for n in NAMES if len(tokenizer(" " + n, add_special_tokens=False)["input_ids"]) == 1]
    pairs = []
    for template in IOI_TEMPLATES:
        for a in names:
            for b in names:
                if a == b:
                    continue
                clean = template.format(a=a, b=b, s=b)  # the giver is b: the answer is a
                corrupt = template.format(a=a, b=b, s=a)  # the giver is a: the answer would be b
                pairs.append(MinimalPair(clean, corrupt, a, b))
    if len(names) < 3:
        return []
    return pairs


def task_pairs(name: str, loaded: Any) -> list[MinimalPair]:
    """The pairs of task ``name`` for ``loaded`` (PairsError: no such task, or too few words the model knows)."""
    makers: dict[str, Callable[[], list[MinimalPair]]] = {
        "gender": lambda: _gender(loaded, False), "agreement": lambda: _gender(loaded, True),
        "number": lambda: _number(loaded), "ioi": lambda: _ioi(loaded)}
    if name not in makers:
        raise PairsError(tr("--task {task}: no such task (tasks: {tasks})").format(task=name, tasks=", ".join(TASKS)))
    if name != "ioi" and (loaded.shared_rows or not loaded.offers(Capability.DECODER)):
        raise PairsError(tr("--task {task} is for a model that translates English into French").format(task=name))
    return _limited(makers[name](), name)


def tasks_for(loaded: Any) -> tuple[str, ...]:
    """The generated tasks that apply to ``loaded``: gender, agreement and number for a model that translates
    English into French, ioi for a Hugging Face decoder-only folder; none for another model (its pairs come from a
    file) or one whose heads cannot be patched."""
    if loaded.offers(Capability.MASKS) or not loaded.offers(Capability.DECODER):
        return ()
    if loaded.shared_rows:
        return ("ioi",) if getattr(loaded.src_vocab, "tokenizer", None) is not None else ()
    return TASKS[:3]
