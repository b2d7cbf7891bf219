#!/usr/bin/env bash
# Installs the Sentinel gateway as a systemd service on Debian or Raspberry Pi OS (64-bit), or
# removes it. Idempotent: running it again updates the application and the unit and keeps the site,
# the credentials and the data. The layout and why: docs/deployment.md.
#
#   sudo src/main/dist/install.sh [--root DIR] [--app DIR] [--site DIR] [--no-start]
#   sudo /opt/sentinel/install.sh --uninstall [--purge] [--root DIR]
#
#   --root DIR   install into DIR as if it were / (a scratch root: nothing is started)
#   --app DIR    the application tree (default: target/quarkus-app of this checkout)
#   --site DIR   the site copied to /etc/sentinel/site when there is none (default: the example)
#   --no-start   enable the service but do not (re)start it
#   --uninstall  remove what an install added; the site, credentials and data stay unless --purge
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." 2>/dev/null && pwd || true)"
root=/
app="$repo/target/quarkus-app"
site_src="$repo"
start=yes
action=install
purge=no
while [[ $# -gt 0 ]]; do
  case "$1" in
    --root) root="$2"; shift 2 ;;
    --app) app="$2"; shift 2 ;;
    --site) site_src="$2"; shift 2 ;;
    --no-start) start=no; shift ;;
    --uninstall) action=uninstall; shift ;;
    --purge) purge=yes; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown option $1 (--help)" >&2; exit 2 ;;
  esac
done
root="$(cd "$root" && pwd)"
r="${root%/}"
live=no
[[ "$root" == / ]] && live=yes
[[ $EUID -eq 0 ]] || { echo "install.sh: run as root (sudo)" >&2; exit 1; }

opt="$r/opt/sentinel"
manifest="$r/etc/sentinel/install.manifest"
unit="$r/etc/systemd/system/sentinel.service"
udev_rule="$r/etc/udev/rules.d/60-sentinel-gpio.rules"
etc="$r/etc/sentinel"
env_file="$etc/sentinel.env"
site="$etc/site"
data="$r/var/lib/sentinel"
shadow_opts=()
[[ $live == no ]] && shadow_opts=(--prefix "$root")

say() { echo "install.sh: $*"; }
# The manifest names what this script created besides its own files, so that an uninstall removes
# exactly that: users, groups and parent folders that did not exist before.
note() { grep -qxF "$1" "$manifest" 2>/dev/null || echo "$1" >> "$manifest"; }
mkdirs() { # mkdirs MODE DIR...: creates each missing folder and its missing parents, noting them
  local mode="$1" want d missing
  shift
  for want in "$@"; do
    missing=()
    d="$want"
    while [[ ! -e "$d" && "$d" != "$r" ]]; do missing=("$d" "${missing[@]}"); d="$(dirname "$d")"; done
    for d in "${missing[@]}"; do mkdir -m "$mode" "$d"; pending_dirs+=("$d"); done
  done
}
has_group() { grep -q "^$1:" "$r/etc/group" 2>/dev/null; }
has_user() { grep -q "^$1:" "$r/etc/passwd" 2>/dev/null; }
uid_of() { awk -F: -v u="$1" '$1 == u { print $3 }' "$r/etc/passwd"; }
gid_of() { awk -F: -v g="$1" '$1 == g { print $3 }' "$r/etc/group"; }

install_all() {
  [[ -f "$app/quarkus-run.jar" ]] || { echo "install.sh: no application in $app: ./mvnw -B -DskipTests package first" >&2; exit 1; }
  if [[ $live == yes ]] && ! /usr/bin/java -version 2>&1 | grep -qE 'version "(1[7-9]|[2-9][0-9])'; then
    echo "install.sh: needs Java 17 or later at /usr/bin/java: apt-get install openjdk-17-jre-headless" >&2
    exit 1
  fi
  pending_dirs=()
  mkdirs 0755 "$opt" "$(dirname "$unit")" "$(dirname "$udev_rule")" "$etc" "$(dirname "$data")"
  [[ -f "$manifest" ]] || : > "$manifest"
  chmod 0600 "$manifest"
  for d in "${pending_dirs[@]}"; do [[ "$d" == "$opt" || "$d" == "$etc" ]] || note "dir ${d#"$r"}"; done

  # The user, in the gpio group that owns /dev/gpiochip* (Raspberry Pi OS has it; Debian gets it
  # with the udev rule below).
  if ! has_group gpio; then groupadd "${shadow_opts[@]}" --system gpio; note "group gpio"; fi
  if ! has_user sentinel; then
    useradd "${shadow_opts[@]}" --system --user-group --groups gpio --home-dir /var/lib/sentinel \
      --no-create-home --shell /usr/sbin/nologin --comment "Sentinel gateway" sentinel
    note "user sentinel"
  elif ! id -nG sentinel 2>/dev/null | grep -qw gpio && [[ $live == yes ]]; then
    usermod -aG gpio sentinel
  fi
  local uid gid
  uid="$(uid_of sentinel)"
  gid="$(gid_of sentinel)"

  # The application: replaced whole, root's, read-only to the service.
  find "$opt" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
  cp -R "$app/." "$opt/"
  install -m 0644 "$repo/src/main/jvm/edge.options" "$opt/edge.options"
  install -m 0755 "$repo/src/main/jvm/sentinel-java" "$opt/sentinel-java"
  install -m 0755 "${BASH_SOURCE[0]}" "$opt/install.sh"
  if [[ -f "$repo/docs/deployment.md" ]]; then
    mkdir -p "$opt/docs" && install -m 0644 "$repo/docs/deployment.md" "$opt/docs/deployment.md"
  fi
  chown -R 0:0 "$opt"
  chmod -R u=rwX,go=rX "$opt"

  install -m 0644 "$repo/src/main/systemd/sentinel.service" "$unit"
  echo 'SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"' > "$udev_rule"
  chmod 0644 "$udev_rule"

  # Credentials: read by systemd as root before it drops to the sentinel user, so root's, 0600.
  if [[ ! -e "$env_file" ]]; then
    cat > "$env_file" <<'ENV'
# Sentinel's credentials and site settings (systemd EnvironmentFile: KEY=value, no quotes needed).
# Root's, mode 0600; never in the site folder. Keys: docs/runtime.md, docs/persistence.md.
#SENTINEL_MQTT_URL=tcp://user:password@broker.local:1883
#SENTINEL_DB_URL=postgresql://sentinel:password@db.local:5432/sentinel
#SENTINEL_API_TOKEN=
#SENTINEL_JAVA_OPTS=-Xmx96m
ENV
    say "wrote $env_file (edit it: broker, database, API token)"
  fi
  chown 0:0 "$env_file"
  chmod 0600 "$env_file"

  # The site: the operator's, kept across installs; the example only when there is none.
  if [[ ! -d "$site" ]] || [[ -z "$(ls -A "$site")" ]]; then
    mkdir -p "$site"
    local part
    for part in points.yaml derived.yaml site.yaml keys.yaml rules tests seeds; do
      [[ -e "$site_src/$part" ]] && cp -R "$site_src/$part" "$site/"
    done
    chown -R "0:$gid" "$site"
    chmod -R u=rwX,g=rX,o= "$site"
    say "copied the site from $site_src to $site"
  fi

  # The data folder (the journal, the embedded PostgreSQL): the service's own.
  [[ -d "$data" ]] || mkdir -m 0750 "$data"
  chown "$uid:$gid" "$data"
  chmod 0750 "$data"

  if command -v systemctl >/dev/null; then
    if [[ $live == yes ]]; then
      systemctl daemon-reload
      systemctl enable sentinel.service
      if command -v udevadm >/dev/null; then
        udevadm control --reload && udevadm trigger --subsystem-match=gpio || say "udevadm failed: replug or reboot for the gpio rule"
      fi
      if [[ $start == yes ]]; then systemctl restart sentinel.service; fi
    else
      [[ -d "$r/etc/systemd/system/multi-user.target.wants" ]] || note "dir /etc/systemd/system/multi-user.target.wants"
      systemctl --root="$root" --quiet enable sentinel.service
    fi
  fi
  say "installed in $root (unit sentinel.service, site $site, data $data)"
}

uninstall_all() {
  local entries=()
  [[ -f "$manifest" ]] && mapfile -t entries < "$manifest"
  if command -v systemctl >/dev/null && [[ -e "$unit" ]]; then
    if [[ $live == yes ]]; then
      systemctl disable --now sentinel.service || true
    else
      systemctl --root="$root" --quiet disable sentinel.service || true
    fi
  fi
  rm -f "$unit" "$udev_rule"
  if [[ $live == yes ]] && command -v systemctl >/dev/null; then systemctl daemon-reload; fi
  rm -rf "$opt"
  local e
  for e in "${entries[@]}"; do
    case "$e" in
      "user sentinel") userdel "${shadow_opts[@]}" sentinel 2>/dev/null || true
        # userdel leaves the user's own group when another user is in it; it is ours all the same
        if has_group sentinel; then groupdel "${shadow_opts[@]}" sentinel; fi ;;
      "group gpio") if has_group gpio; then groupdel "${shadow_opts[@]}" gpio; fi ;;
    esac
  done
  if [[ $purge == yes ]]; then rm -rf "$etc" "$data"; fi
  # Folders this script created, deepest first, if they are empty now; those still holding the
  # kept site or data stay in the manifest for a later --purge.
  local i kept=()
  for ((i = ${#entries[@]} - 1; i >= 0; i--)); do
    e="${entries[$i]}"
    if [[ "$e" == dir\ * ]] && ! rmdir "$r${e#dir }" 2>/dev/null && [[ -d "$r${e#dir }" ]]; then
      kept=("$e" "${kept[@]}")
    fi
  done
  if [[ $purge == no ]]; then
    printf '%s\n' "${kept[@]}" | grep . > "$manifest" || rm -f "$manifest"
    say "kept $site, $env_file and $data (--purge removes them)"
  fi
  say "removed from $root"
}

if [[ $action == install ]]; then install_all; else uninstall_all; fi
