"""``ragcore users ...`` and ``ragcore share``: team accounts and index shares from the shell.

The command line acts as the local administrator of the workspace it is given (whoever can run
it there can read the files anyway): it adds, lists, disables, deletes accounts and resets
passwords (``users``), shares an index with an account or everyone, takes a share back, or gives
the index a new owner (``share``), and shows the audit log (``users audit``). A password is read
with a hidden prompt typed twice, or as one line from standard input when it is not a terminal
(scripts); it is never an argument, so it never lands in the shell's history.
"""

from __future__ import annotations

import argparse
import getpass
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..workspace.team.team import Team
    from .context import CliContext


def add_parsers(commands, common: argparse.ArgumentParser) -> None:
    users = commands.add_parser("users", parents=[common], help="team accounts (team mode)",
                                description="Manage the accounts of the workspace's team "
                                            "(RAGCORE_AUTH=local). The first account is an admin.")
    actions = users.add_subparsers(dest="users_action", metavar="ACTION", required=True)
    add = actions.add_parser("add", parents=[common], help="create an account (asks a password)")
    add.add_argument("account", metavar="NAME")
    add.add_argument("--admin", action="store_true", help="make it an admin")
    add.add_argument("--display", default="", metavar="TEXT", help="the name shown for it")
    add.set_defaults(run=run_add)
    actions.add_parser("list", parents=[common], help="list the accounts").set_defaults(
        run=run_list)
    disable = actions.add_parser("disable", parents=[common], help="disable an account")
    disable.add_argument("account", metavar="NAME")
    disable.add_argument("--enable", action="store_true", help="enable it again instead")
    disable.set_defaults(run=run_disable)
    delete = actions.add_parser("delete", parents=[common], help="delete an account")
    delete.add_argument("account", metavar="NAME")
    delete.set_defaults(run=run_delete)
    reset = actions.add_parser("reset-password", parents=[common],
                               help="set a new password (ends its sessions, lifts a lockout)")
    reset.add_argument("account", metavar="NAME")
    reset.set_defaults(run=run_reset)
    audit = actions.add_parser("audit", parents=[common], help="show the audit log, newest first")
    audit.add_argument("--limit", type=int, default=50, metavar="N")
    audit.set_defaults(run=run_audit)
    _add_share_parser(commands, common)


def _add_share_parser(commands, common: argparse.ArgumentParser) -> None:
    share = commands.add_parser(
        "share", parents=[common], help="share an index with an account or everyone",
        description="Share an index read-only (--read) or read-write (--write) with an account "
                    "(--with NAME) or everyone (--everyone); --remove takes the share back; "
                    "--owner NAME gives the index a new owner. Without options: list its shares.")
    share.add_argument("index", metavar="INDEX")
    who = share.add_mutually_exclusive_group()
    who.add_argument("--with", dest="grantee", metavar="NAME", help="the account to share with")
    who.add_argument("--everyone", action="store_true", help="every account, present and future")
    who.add_argument("--owner", metavar="NAME", help="make this account the index's owner")
    level = share.add_mutually_exclusive_group()
    level.add_argument("--read", dest="level", action="store_const", const="read")
    level.add_argument("--write", dest="level", action="store_const", const="write")
    level.add_argument("--remove", dest="level", action="store_const", const="remove")
    share.set_defaults(run=run_share)


def _team(context: CliContext) -> Team:
    from ..workspace.team.team import Team

    return Team.open(context.workspace().root)


def _admin():
    from ..workspace.team.accounts import LOCAL_ADMIN

    return LOCAL_ADMIN


def read_password(prompt: str = "Password") -> str:
    """A password typed twice at a hidden prompt, or one line of standard input."""
    if not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass(f"{prompt}: ")
    if getpass.getpass(f"{prompt} again: ") != first:
        from ..errors import ConfigError

        raise ConfigError("the two passwords differ: run the command again")
    return first


def run_add(args: argparse.Namespace, context: CliContext) -> int:
    with _team(context) as team:
        user = team.accounts.create(_admin(), args.account, read_password(),
                                    role="admin" if args.admin else "member",
                                    display=args.display)
    sys.stdout.write(f"created {user.name} ({user.role})\n")
    return 0


def run_list(args: argparse.Namespace, context: CliContext) -> int:
    with _team(context) as team:
        users = team.accounts.users()
    if not users:
        sys.stdout.write("no accounts yet: `ragcore users add NAME` makes the first admin\n")
    for user in users:
        state = "  disabled" if user.disabled else ""
        shown = f"  ({user.display})" if user.display else ""
        sys.stdout.write(f"{user.name}  {user.role}{state}{shown}\n")
    return 0


def run_disable(args: argparse.Namespace, context: CliContext) -> int:
    with _team(context) as team:
        team.accounts.set_disabled(_admin(), team.accounts.require(args.account),
                                   not args.enable)
    sys.stdout.write(f"{'enabled' if args.enable else 'disabled'} {args.account}\n")
    return 0


def run_delete(args: argparse.Namespace, context: CliContext) -> int:
    with _team(context) as team:
        team.accounts.delete(_admin(), team.accounts.require(args.account))
    sys.stdout.write(f"deleted {args.account}: indexes it owned are now the admins'\n")
    return 0


def run_reset(args: argparse.Namespace, context: CliContext) -> int:
    with _team(context) as team:
        user = team.accounts.require(args.account)
        team.accounts.reset_password(_admin(), user, read_password("New password"))
    sys.stdout.write(f"new password set for {user.name}; its sessions ended\n")
    return 0


def run_audit(args: argparse.Namespace, context: CliContext) -> int:
    with _team(context) as team:
        entries = team.audit.read(_admin(), limit=args.limit)
    for entry in entries:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(entry.at))
        outcome = "ok" if entry.ok else "FAILED"
        sys.stdout.write(f"{stamp}Z  {entry.event:<7} {outcome:<6} {entry.actor or '-'}  "
                         f"{entry.target}  {entry.detail}\n".rstrip() + "\n")
    return 0


def run_share(args: argparse.Namespace, context: CliContext) -> int:
    from ..errors import ConfigError
    from ..workspace.team.team import index_uid

    workspace = context.workspace()
    workspace.index_info(args.index)  # a clear error for an unknown index
    uid = index_uid(workspace, args.index)
    with _team(context) as team:
        if args.owner:
            team.give_index(_admin(), uid, team.accounts.require(args.owner))
            sys.stdout.write(f"{args.owner} now owns index {args.index}\n")
            return 0
        if not (args.grantee or args.everyone):
            if args.level:
                raise ConfigError("say with whom: --with NAME or --everyone")
            return _print_shares(team, uid, args.index)
        if not args.level:
            raise ConfigError("say how: --read, --write, or --remove")
        grantee = None if args.everyone else team.accounts.require(args.grantee)
        whom = "everyone" if grantee is None else grantee.name
        if args.level == "remove":
            removed = team.unshare(_admin(), uid, grantee)
            sys.stdout.write(f"{'removed' if removed else 'there was no'} share of index "
                             f"{args.index} with {whom}\n")
            return 0
        team.share(_admin(), uid, grantee, args.level)
    sys.stdout.write(f"shared index {args.index} with {whom} ({args.level})\n")
    return 0


def _print_shares(team: Team, uid: str, shown: str) -> int:
    owner = team.grants.owner(uid)
    names = {user.id: user.name for user in team.accounts.users()}
    sys.stdout.write(f"index {shown}: owner {names.get(owner, 'none (admins only)')}\n")
    for share in team.grants.shares(uid):
        whom = "everyone" if share.user_id is None else names.get(share.user_id, "?")
        sys.stdout.write(f"  {whom}: {share.level}\n")
    return 0
