"""Description mistakes in the network renderer are named, not rendered (the ninety-first review).

* two different templates of one name — in one net, across the nets rendered together, or a
  block file already in the lemma root with another body — are refused, naming both blocks or
  the file, instead of one body being proved for every block of that name;
* a template the renderer cannot render (a widening block with an identity skip, a parameter
  name used twice, a size binder not declared, a size binder named like one the generated file
  binds itself) is a ValueError naming the net, the block and the template, and
  `python -m shardproof.nets render` prints it and exits 2 (no traceback);
* `docs/networks.md` shows how to run parity on a net of your own, and says what checking the
  must-fail files gives (blocks refuted, whole-net statements `unknown` naming the block).
"""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import pytest

from shardproof.nets import NETS, render_net, templates
from shardproof.nets.__main__ import main as nets_main
from shardproof.nets.files import render_all
from shardproof.nets.resnet34 import BASIC_ID, HEAD, STEM
from shardproof.nets.spec import BN, Act, Block, Conv, Net, Template

REPO = Path(__file__).resolve().parents[1]
LEMMAS = REPO / "lemmas"

RELU = Act("relu")
# ResNet-34's identity block with relu6: the same name, another body
ID6 = dataclasses.replace(BASIC_ID, doc="basic identity block with relu6",
                          body=tuple(Act("relu6") if isinstance(layer, Act) else layer
                                     for layer in BASIC_ID.body), post=(Act("relu6"),))


def _net(key: str, *middle: Block, width: int = 4) -> Net:
    return Net(key=key, title=key, short=key[:2], fwd_name=f"{key}Fwd",
               sync_name=f"{key}FwdSync", t2_name=f"{key}FwdSync_shard",
               tied_name=f"{key}Tied", t3_name=f"{key}_tied", cin=3, base="1", input_level=2,
               blocks=[Block(STEM, "stem", {"ic": 3, "oc": width, "k": 3}), *middle,
                       Block(HEAD, "head", {"c": width})], census=0, bn_sites=0)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A lemma root with the kit and the network ops, as docs/networks.md sets one up."""
    r = tmp_path / "lemmas"
    shutil.copytree(LEMMAS / "kit", r / "kit")
    (r / "nets").mkdir()
    shutil.copy(LEMMAS / "nets" / "ops.lemma", r / "nets" / "ops.lemma")
    (r / ".lemmaroot").write_text("")
    return r


def _nets_files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in (root / "nets").rglob("*.lemma")}


# --------------------------------------------------------------------------- A: one name, one body

def test_two_templates_of_one_name_in_one_net_are_refused(root: Path) -> None:
    net = _net("mix", Block(BASIC_ID, "b1", {"c": 4, "k": 3}), Block(ID6, "b2", {"c": 4, "k": 3}))
    with pytest.raises(ValueError, match=r"two different templates are named 'r34Id': block 'b1' "
                                         r"of net 'mix' and block 'b2' of net 'mix' \(they "
                                         r"differ in doc, body, post\)"):
        render_net(net, root)
    assert _nets_files(root) == {"nets/ops.lemma"}            # nothing written


def test_two_templates_of_one_name_across_the_nets_are_refused(monkeypatch, capsys) -> None:
    # review 91's `r18x`: a net in NETS whose block is named `r34Id` but uses relu6 rendered,
    # checked and passed the tests, proved about ResNet-34's relu body
    monkeypatch.setitem(NETS, "r18x", _net("r18x", Block(ID6, "s1b0", {"c": 4, "k": 3})))
    want = (r"two different templates are named 'r34Id': block 's1b0' of net 'resnet34' and "
            r"block 's1b0' of net 'r18x'")
    with pytest.raises(ValueError, match=want):
        templates()
    with pytest.raises(ValueError, match=want):
        render_all()
    monkeypatch.chdir(REPO)
    for argv in (["render", "--check"], ["render"]):
        assert nets_main(argv) == 2
        err = capsys.readouterr().err
        assert re.search(want, err) and "Traceback" not in err, err


def test_a_block_file_with_another_body_is_not_overwritten(root: Path, capsys) -> None:
    """Review 91's collide2: a second net rendered into the same root rewrote
    `nets/blocks/r34Id.lemma` under the first net, which then was proved about the new body."""
    render_net(_net("first", Block(BASIC_ID, "b1", {"c": 4, "k": 3})), root)
    block = root / "nets" / "blocks" / "r34Id.lemma"
    before = block.read_text(encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(str(block)) + r": a block named 'r34Id' "
                                         r"already exists there with another body"):
        render_net(_net("second", Block(ID6, "b1", {"c": 4, "k": 3})), root)
    assert block.read_text(encoding="utf-8") == before
    assert not (root / "nets" / "second.lemma").exists()     # nothing of it written
    # the same template in another net shares the file, as it is
    assert {p.name for p in render_net(_net("third", Block(BASIC_ID, "b1", {"c": 8, "k": 1}),
                                            width=8), root)} == {"third.lemma", "third_step.lemma"}
    assert block.read_text(encoding="utf-8") == before
    # `render --out` renders the repository's nets: their resStem, r34Id and resHead are the
    # bodies already there (written by render_net, with another note), so they stay as they are
    assert nets_main(["render", "--out", str(root)]) == 0
    assert block.read_text(encoding="utf-8") == before
    assert (root / "nets" / "resnet34.lemma").exists()
    # ... but a block file of one of their names with another body stops it, before any write
    shutil.rmtree(root / "nets" / "blocks")
    (root / "nets" / "resnet34.lemma").unlink()
    render_net(_net("second", Block(ID6, "b1", {"c": 4, "k": 3})), root)
    capsys.readouterr()
    assert nets_main(["render", "--out", str(root)]) == 2
    err = capsys.readouterr().err
    assert f"{block}: a block named 'r34Id' already exists there with another body" in err, err
    assert "relu6" in block.read_text(encoding="utf-8")
    assert not (root / "nets" / "resnet34.lemma").exists()


def test_the_repository_render_is_unchanged() -> None:
    """The repository's own nets share templates by object: rendering them together passes
    the checks, and the files are the committed ones (`render --check` is 0)."""
    assert len(templates()) == len(list((LEMMAS / "nets" / "blocks").glob("*.lemma")))
    stale = [rel for rel, text in render_all().items()
             if (LEMMAS / rel).read_text(encoding="utf-8") != text]
    assert not stale, stale


# --------------------------------------------------------------------------- B: named, not traced

WIDE_ID = Template(name="wideId", doc="a widening block given an identity skip",
                   sizes=("c", "oc", "k", "h", "w"), cin="c", level_in=0,
                   body=(Conv("conv", "k", "oc", "W1"), BN("g1", "bt1"), RELU), skip=())
DUP_PARAM = Template(name="dupP", doc="g1 twice", sizes=("c", "k", "h", "w"), cin="c",
                     level_in=0, body=(Conv("conv", "k", "c", "W1"), BN("g1", "bt1"), RELU,
                                       Conv("conv", "k", "c", "W2"), BN("g1", "bt2")), skip=())
NO_MID = Template(name="noMid", doc="mid not declared", sizes=("c", "k", "h", "w"), cin="c",
                  level_in=0, body=(Conv("conv", "1", "mid", "W1"), BN("g1", "bt1"), RELU,
                                    Conv("conv", "1", "c", "W2")), skip=())


def _own_binder(name: str) -> Template:
    return Template(name="ownSize", doc="a size named " + name, sizes=(name, "k", "h", "w"),
                    cin=name, level_in=0, body=(Conv("conv", "k", name, "W1"), BN("g1", "bt1")),
                    skip=())


MISTAKES = [
    (WIDE_ID, {"c": 4, "oc": 8, "k": 3}, 8,
     r"template 'wideId': the body gives `oc` channels at spatial level 0, but the identity "
     r"skip passes the input on as `c` channels at spatial level 0"),
    (DUP_PARAM, {"c": 4, "k": 3}, 4, r"template 'dupP': the parameter name 'g1' is used twice"),
    (NO_MID, {"c": 4, "k": 3}, 4,
     r"template 'noMid': the cout of Conv\(kind='conv', k='1', cout='mid', W='W1'\) is 'mid', "
     r"which is neither a numeral nor one of its size binders"),
] + [(_own_binder(z), {z: 4, "k": 3}, 4,
      rf"template 'ownSize': the size binder '{z}' is a name the generated file "
      r"binds itself") for z in ("R", "N", "ε", "r", "q1")]


@pytest.mark.parametrize("t,sizes,out,message", MISTAKES,
                         ids=[m[0].name if m[0].name != "ownSize" else "size" + m[0].sizes[0]
                              for m in MISTAKES])
def test_a_template_mistake_names_the_net_the_block_and_the_template(
        root: Path, t: Template, sizes: dict, out: int, message: str) -> None:
    net = _net("mine", Block(t, "b1", sizes), width=4)
    net.blocks[-1] = Block(HEAD, "head", {"c": out})
    with pytest.raises(ValueError, match=r"^net 'mine', block 'b1': " + message):
        render_net(net, root)
    assert _nets_files(root) == {"nets/ops.lemma"}


@pytest.mark.parametrize("t,sizes,out,message", MISTAKES[:2], ids=["wideId", "dupP"])
def test_render_prints_a_template_mistake_and_exits_2(monkeypatch, capsys, t: Template,
                                                      sizes: dict, out: int,
                                                      message: str) -> None:
    """In the repository: the mistake in a registered net (was an AssertionError traceback,
    exit 1, through `render --check`)."""
    net = _net("mine", Block(t, "b1", sizes))
    net.blocks[-1] = Block(HEAD, "head", {"c": out})
    monkeypatch.setitem(NETS, "mine", net)
    monkeypatch.chdir(REPO)
    assert nets_main(["render", "--check"]) == 2
    err = capsys.readouterr().err
    assert re.search(r"error: net 'mine', block 'b1': " + message, err), err


def test_the_checks_are_no_asserts() -> None:
    """Input validation survives `python -O` (which drops every `assert`)."""
    import subprocess
    import sys
    code = ("from shardproof.nets.render import check_template\n"
            "from shardproof.nets.spec import BN, Act, Conv, Template\n"
            "t = Template(name='wideId', doc='', sizes=('c', 'oc', 'k', 'h', 'w'), cin='c',\n"
            "             level_in=0, body=(Conv('conv', 'k', 'oc', 'W1'), BN('g1', 'bt1')),\n"
            "             skip=())\n"
            "try:\n    check_template(t)\nexcept ValueError as e:\n    print('named:', e)\n")
    out = subprocess.run([sys.executable, "-O", "-c", code], cwd=REPO, capture_output=True,
                         text=True, timeout=120)
    assert out.stdout.startswith("named: template 'wideId'"), out.stdout + out.stderr


# --------------------------------------------------------------------------- C: the docs

def _adding_a_network() -> str:
    text = (REPO / "docs" / "networks.md").read_text(encoding="utf-8")
    return text[text.index("## Adding a network"):text.index("## The negative: plain DDP")]


def test_the_docs_run_parity_on_a_net_of_your_own() -> None:
    """The outside-the-repository path shows how to run parity and the backward check on your
    own net: its snippet runs, on a small net, and passes."""
    blocks = re.findall(r"```python\n(.*?)```", _adding_a_network(), re.S)
    snippet = next((b for b in blocks if "run_parity" in b), None)
    assert snippet, "no snippet running parity on your own net"
    snippet = "\n".join(line[3:] for line in snippet.splitlines())      # the list's indent
    assert "check_backward=True" in snippet
    env = {"NET": _net("mine", Block(BASIC_ID, "b1", {"c": 4, "k": 3}))}
    exec(compile(snippet, "docs/networks.md", "exec"), env)             # its asserts pass
    assert env["report"].backward_fd_rel is not None


def test_the_docs_say_what_checking_the_must_fail_files_gives(root: Path) -> None:
    """Not "shown refuted": the block statements come out refuted, the prefixes and whole-net
    statements `unknown` with a reason naming the refuted block lemma (or, for the unscaled
    loss, the hypothesis lacking `R •`) — checked here on a small net of one's own."""
    doc = " ".join(_adding_a_network().split())
    assert "shows the must-fail files refuted" not in doc
    assert "come out `unknown`" in doc and "it rests on" in doc and "which is refuted" in doc
    from shardproof.check import Checker, Options
    render_net(_net("mine", Block(BASIC_ID, "b1", {"c": 4, "k": 3})), root, negatives=True)
    ck = Checker(Options(search_seconds=2.0))
    per = {v.name: v for v in ck.check_file(root / "negative" / "mine_perreplica.lemma")}
    step = {v.name: v for v in ck.check_file(root / "negative" / "mine_unscaled_step.lemma")}
    assert all(v.verdict == "refuted" for n, v in {**per, **step}.items()
               if re.fullmatch(r"(resStem|r34Id|resHead)(Local\w*_shard|Unscaled_syncTied)", n))
    whole = [per["miLocalAct1_shard"], per["mineFwdSync_shard_local"]]
    assert all(v.verdict == "unknown" and "it rests on `resStemLocal_shard`, which is refuted"
               in v.reason for v in whole), [(v.name, v.verdict, v.reason) for v in whole]
    unscaled = step["mine_tied_unscaled"]
    assert unscaled.verdict == "unknown" and "hgs" in unscaled.reason, unscaled.reason
