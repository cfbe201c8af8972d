# Builds and installs almanac and almanacd like any Unix tool:
#
#   make                          release binaries, man pages and shell completions (under .build/)
#   make install                  into PREFIX (/usr/local), below DESTDIR when given
#   make install PREFIX=/usr DESTDIR=/tmp/root
#   make uninstall
#
# One release build serves everything (binaries and completions); the man pages come from swift-argument-parser's
# generate-manual plugin. A machine needs Swift
# and the development files of libxml2 and SQLite (libxml2-dev, libsqlite3-dev).

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
# /usr's configuration lives in /etc; any other prefix keeps its own (/usr/local/etc).
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
# The date printed in the man pages (a fixed one gives the same pages on every build).
MANDATE ?= $(shell date -u +%Y-%m-%d)

SWIFT ?= swift
# Swift's runtime and Foundation linked in, so the binaries run where no Swift toolchain is installed.
SWIFT_BUILD_FLAGS ?= -c release --static-swift-stdlib
# The man pages are made from the help texts, which a debug build (the one `swift test` makes) prints alike; the
# plugin's own release build would not link the runtime statically and would relink the binaries above.
MANUAL_CONFIGURATION ?= debug
INSTALL ?= install
TOOLS := almanac almanacd
GENERATED := .build/generated
SOURCES := Package.swift $(shell find Sources -name '*.swift')

.PHONY: all build manuals completions units install uninstall clean-generated

all: build manuals completions units

build:
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --product almanac
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --product almanacd

# swift-argument-parser's generate-manual plugin writes one page per executable product; almanac is a user
# command (section 1), almanacd a daemon (section 8).
# Made again only when a source changed (a second `make install` into another root reuses them).
manuals: $(GENERATED)/man/stamp

$(GENERATED)/man/stamp: $(SOURCES)
	$(SWIFT) package plugin generate-manual --configuration $(MANUAL_CONFIGURATION) --date $(MANDATE)
	$(SWIFT) package plugin generate-manual --configuration $(MANUAL_CONFIGURATION) --date $(MANDATE) --section 8
	mkdir -p $(GENERATED)/man
	cp .build/plugins/GenerateManual/outputs/almanac/almanac.1 $(GENERATED)/man/
	cp .build/plugins/GenerateManual/outputs/almanacd/almanacd.8 $(GENERATED)/man/
	touch $@

completions: build $(GENERATED)/completions/stamp

$(GENERATED)/completions/stamp: $(SOURCES)
	mkdir -p $(GENERATED)/completions/bash $(GENERATED)/completions/zsh $(GENERATED)/completions/fish
	set -e; bin=$$($(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path); for tool in $(TOOLS); do \
	    "$$bin/$$tool" --generate-completion-script bash >$(GENERATED)/completions/bash/$$tool; \
	    "$$bin/$$tool" --generate-completion-script zsh >$(GENERATED)/completions/zsh/_$$tool; \
	    "$$bin/$$tool" --generate-completion-script fish >$(GENERATED)/completions/fish/$$tool.fish; \
	done
	touch $@

# The units name the binary and its defaults file where this prefix puts them.
units:
	mkdir -p $(GENERATED)/systemd
	for unit in almanacd.service almanacd.socket; do \
	    sed -e 's|/usr/local/bin/almanacd|$(BINDIR)/almanacd|g' \
	        -e 's|/etc/default/almanacd|$(SYSCONFDIR)/default/almanacd|g' \
	        systemd/$$unit >$(GENERATED)/systemd/$$unit; \
	done

install: all
	set -e; bin=$$($(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path); for tool in $(TOOLS); do \
	    $(INSTALL) -D -m 0755 "$$bin/$$tool" "$(DESTDIR)$(BINDIR)/$$tool"; \
	    $(INSTALL) -D -m 0644 $(GENERATED)/completions/bash/$$tool "$(DESTDIR)$(BASHCOMPDIR)/$$tool"; \
	    $(INSTALL) -D -m 0644 $(GENERATED)/completions/zsh/_$$tool "$(DESTDIR)$(ZSHCOMPDIR)/_$$tool"; \
	    $(INSTALL) -D -m 0644 $(GENERATED)/completions/fish/$$tool.fish "$(DESTDIR)$(FISHCOMPDIR)/$$tool.fish"; \
	done
	$(INSTALL) -D -m 0644 $(GENERATED)/man/almanac.1 "$(DESTDIR)$(MANDIR)/man1/almanac.1"
	$(INSTALL) -D -m 0644 $(GENERATED)/man/almanacd.8 "$(DESTDIR)$(MANDIR)/man8/almanacd.8"
	$(INSTALL) -D -m 0644 $(GENERATED)/systemd/almanacd.service "$(DESTDIR)$(SYSTEMDUNITDIR)/almanacd.service"
	$(INSTALL) -D -m 0644 $(GENERATED)/systemd/almanacd.socket "$(DESTDIR)$(SYSTEMDUNITDIR)/almanacd.socket"
	$(INSTALL) -D -m 0644 systemd/almanacd.default "$(DESTDIR)$(SYSCONFDIR)/default/almanacd"

uninstall:
	for tool in $(TOOLS); do \
	    rm -f "$(DESTDIR)$(BINDIR)/$$tool" "$(DESTDIR)$(BASHCOMPDIR)/$$tool" "$(DESTDIR)$(ZSHCOMPDIR)/_$$tool" \
	        "$(DESTDIR)$(FISHCOMPDIR)/$$tool.fish"; \
	done
	rm -f "$(DESTDIR)$(MANDIR)/man1/almanac.1" "$(DESTDIR)$(MANDIR)/man8/almanacd.8" \
	    "$(DESTDIR)$(SYSTEMDUNITDIR)/almanacd.service" "$(DESTDIR)$(SYSTEMDUNITDIR)/almanacd.socket"
	@echo "kept $(DESTDIR)$(SYSCONFDIR)/default/almanacd (configuration); remove it by hand if unwanted"

clean-generated:
	rm -rf $(GENERATED)
