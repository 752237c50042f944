"""Postgres URLs in every form libpq takes (issue 42): a socket folder (``?host=`` or ``%2F`` in
the netloc), no host, several hosts, ``?port=``, other libpq parameters; the password, given as
``USER:PW@`` or ``?password=``, never in ``clean_url``, an error or a log; and the CLI reaching
the test server through its socket folder."""

from __future__ import annotations

import logging
from urllib.parse import quote

import pytest
from hypothesis import given, strategies as st

pytest.importorskip("psycopg", reason="Postgres URLs are read by psycopg: pip install .[postgres]")

from psycopg.conninfo import conninfo_to_dict  # noqa: E402

from test_cli import run  # noqa: E402,F401 (fixture: ragcore's CLI in a tmp workspace)
from ragcore.errors import ConfigError  # noqa: E402
from ragcore.stores.locations import parse_location  # noqa: E402
from ragcore.stores.postgres import connect as pg  # noqa: E402
from ragcore.testing.engines import PG_PASSWORD  # noqa: E402

SECRET = "Sw0rd-fish"

# (URL, its clean form); every one also with ":SECRET@" or "&password=SECRET" added below
FORMS = [
    ("postgresql://postgres@/postgres?host=/run/postgresql",
     "postgresql://postgres@/postgres?host=/run/postgresql"),
    ("postgresql://postgres@%2Frun%2Fpostgresql/postgres",
     "postgresql://postgres@/postgres?host=/run/postgresql"),
    ("postgresql://postgres@/postgres", "postgresql://postgres@/postgres"),
    ("postgresql://postgres@h1:5432,h2:5433/db?target_session_attrs=read-write",
     "postgresql://postgres@/db?host=h1,h2&port=5432,5433&target_session_attrs=read-write"),
    ("postgresql://postgres@/db?host=h1,h2", "postgresql://postgres@/db?host=h1,h2"),
    ("postgres://postgres@db.example/app?port=5433&sslmode=require",
     "postgres://postgres@db.example:5433/app?sslmode=require"),
    ("postgresql://postgres@[::1]:5433/db", "postgresql://postgres@[::1]:5433/db"),
    ("postgresql://postgres@/db?host=/tmp/my%20sockets&port=5433",
     "postgresql://postgres@/db?host=/tmp/my%20sockets&port=5433"),
]


def with_password(url: str, where: str) -> str:
    if where == "netloc":
        return url.replace("postgres@", f"postgres:{quote(SECRET)}@", 1)
    return url + ("&" if "?" in url else "?") + f"password={quote(SECRET)}"


@pytest.mark.parametrize("url, clean", FORMS)
@pytest.mark.parametrize("where", ["netloc", "query"])
def test_every_libpq_form_is_read_and_cleaned(url, clean, where, caplog):
    caplog.set_level(logging.DEBUG)
    given_url = with_password(url, where)
    assert pg.clean_url(url) == pg.clean_url(given_url) == clean
    assert pg.remember_password(given_url) == clean and SECRET not in clean
    assert pg.password_for(clean) == SECRET  # remembered under the clean URL's key
    read_back = conninfo_to_dict(clean)
    assert read_back == {k: v for k, v in conninfo_to_dict(given_url).items() if k != "password"}
    assert str(parse_location(given_url)) == clean
    assert SECRET not in caplog.text


def test_one_socket_folder_written_two_ways_shares_its_password(monkeypatch):
    monkeypatch.delenv(pg.PASSWORD_ENV, raising=False)
    pg.remember_password("postgresql://me:pw-one@%2Fvar%2Frun%2Fpg/notes")
    assert pg.password_for("postgresql://me@/notes?host=/var/run/pg&port=5432") == "pw-one"
    assert pg.password_for("postgresql://me@/notes?host=/var/run/other") is None
    assert pg.password_for("postgresql://me@/notes?host=/var/run/pg&port=6000") is None


@pytest.mark.parametrize("url, told", [
    ("mysql://me:Sw0rd-fish@db/notes", "'mysql://me:***@db/notes' is not a Postgres URL"),
    ("db.example:5432", "that is not a Postgres URL"),
    ("host=/run/postgresql password=Sw0rd-fish", "that is not a Postgres URL"),
    ("postgresql://me:Sw0rd-fish@[::1/notes", "IPv6 host address"),
    ("postgresql://me:Sw0rd%zzfish@db/notes", "invalid percent-encoded token"),
    ("postgresql://me@db/notes?password=Sw0rd=fish", "extra key/value separator"),
    ("postgresql://me@db/notes?colour=blue&password=Sw0rd-fish", 'parameter: "colour"'),
    ("postgresql://me:Sw0rd/fish@db/notes", "percent-encoded (%3A, %2F, %40)"),
    ("postgresql://me:12/Sw0rd-fish@db/notes", "percent-encoded (%3A, %2F, %40)"),
])
def test_what_is_not_a_postgres_url_is_refused_without_its_password(url, told, caplog):
    caplog.set_level(logging.DEBUG)
    with pytest.raises(ConfigError) as raised:
        pg.remember_password(url)
    message = str(raised.value)
    assert told in message and "postgresql://USER@/DATABASE?host=/SOCKET/FOLDER" in message
    assert raised.value.__cause__ is None and raised.value.__context__ is None
    for shown in (message, pg.clean_url(url), caplog.text):
        assert "Sw0rd" not in shown and "fish" not in shown


# What a URL can carry: UTF-8 text (a lone surrogate, "\ud800", has no UTF-8 form to quote).
_TEXT = st.characters(blacklist_categories=("Cs",))


@given(user=st.text(_TEXT, min_size=1, max_size=8), dbname=st.text(_TEXT, max_size=8),
       hosts=st.lists(st.one_of(st.from_regex(r"/[a-z0-9 _%&=?#@:.-]{0,12}", fullmatch=True),
                                st.from_regex(r"[a-z][a-z0-9.-]{0,8}", fullmatch=True)),
                      max_size=3),
       port=st.one_of(st.just(""), st.integers(1, 65535).map(str)),
       name=st.text(_TEXT, max_size=8),
       # libpq reads C strings: a NUL cannot be in any value it is given
       password=st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)),
                        min_size=1, max_size=12))
def test_clean_url_keeps_every_value_but_the_password(user, dbname, hosts, port, name, password):
    params = {"user": user, "dbname": dbname, "host": ",".join(hosts), "port": port,
              "application_name": name}
    params = {k: v for k, v in params.items() if v and "\0" not in v}
    query = "&".join(f"{k}={quote(v, safe='')}" for k, v in params.items())
    secret = f"password={quote(password, safe='')}"
    url = "postgresql:///?" + "&".join(filter(None, [query, secret]))
    clean = pg.clean_url(url)
    assert conninfo_to_dict(clean) == params and pg.clean_url(clean) == clean  # no password


# -- end to end: the test server through its socket folder --------------------------------------


@pytest.fixture
def socket_url(postgres_url):
    """``socket_url(DB)``: the test server's database DB through its Unix socket folder (the
    server's ``unix_socket_directories``), with no password in it."""
    import psycopg

    with psycopg.connect(postgres_url, password=PG_PASSWORD) as conn:
        folder = conn.execute("SHOW unix_socket_directories").fetchone()[0].split(",")[0].strip()
    port = conninfo_to_dict(postgres_url)["port"]
    url = f"postgresql://ragcore@/postgres?host={folder}&port={port}"
    with psycopg.connect(url, password=PG_PASSWORD) as conn:  # no TCP: no server address
        assert conn.execute("SELECT inet_server_addr()").fetchone()[0] is None
    return lambda db="postgres": url.replace("/postgres?", f"/{db}?")


@pytest.fixture
def docs(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "trust.txt").write_text("Zero trust assumes no implicit trust.", encoding="utf-8")
    return folder


def test_the_cli_keeps_a_whole_index_in_postgres_reached_by_its_socket(
        postgres_url, socket_url, run, docs, monkeypatch):
    from support.team_backends import drop_database, fresh_database

    database = fresh_database(postgres_url)  # made over TCP, then reached by the socket only
    monkeypatch.setenv("RAGCORE_DATABASE_URL", socket_url(database.rsplit("/", 1)[1]))
    try:
        code, out, err = run("ingest", str(docs), "--index", "notes", "--store", "database")
        assert code == 0, out + err
        code, out, err = run("indexes")
        assert code == 0, err
        row = next(line.split() for line in out.splitlines() if line.startswith("notes "))
        assert row[1:4] == ["1", "1", "1"]  # files, documents, chunks
    finally:
        drop_database(database)


def test_the_cli_ingests_into_a_pgvector_table_by_a_socket_url_with_its_password(
        socket_url, run, docs, tmp_path, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)
    monkeypatch.delenv(pg.PASSWORD_ENV)  # the URL's own password, remembered, is the only one
    monkeypatch.delenv("PGPASSWORD", raising=False)
    clean = socket_url()
    code, out, err = run("ingest", str(docs), "--index", "notes", "--store",
                         clean.replace("ragcore@", f"ragcore:{quote(PG_PASSWORD)}@"))
    assert code == 0, out + err
    manifest = (tmp_path / "ws" / "indexes" / "notes" / "manifest.json").read_text()
    record = (tmp_path / "ws" / "indexes" / "notes.json").read_text()
    assert clean in manifest and clean in record
    # the same socket folder written %2F-encoded in the netloc is the same store
    params = conninfo_to_dict(clean)
    encoded = f"postgresql://ragcore@{quote(params['host'], safe='')}:{params['port']}/postgres"
    code, out, err = run("ingest", str(docs), "--index", "notes", "--store", encoded)
    assert code == 0 and "unchanged" in out, out + err
    # and so is a record an older ragcore wrote as given (its query in another order)
    older = f"postgresql://ragcore@/postgres?port={params['port']}&host={params['host']}"
    record_file = tmp_path / "ws" / "indexes" / "notes.json"
    record_file.write_text(record.replace(clean, older), encoding="utf-8")
    code, out, err = run("ingest", str(docs), "--index", "notes", "--store", clean)
    assert code == 0 and "unchanged" in out, out + err
    code, found, err = run("retrieve", "zero trust", "--index", "notes", "-k", "1")
    assert code == 0 and "trust.txt" in found, err
    code, out, err = run("delete-index", "notes", "--yes")
    assert code == 0, out + err
    for shown in (manifest, record, found, out, err, caplog.text):
        assert PG_PASSWORD not in shown
