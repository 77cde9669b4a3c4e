# install.mk — `make install` and `make uninstall` (included by the Makefile).
#
#   make install PREFIX=/usr/local [DESTDIR=/tmp/stage]
#
# installs the public header, the shared library (libgnndb.so.$(VERSION) with
# its soname link libgnndb.so.$(SOVERSION) and the development link
# libgnndb.so), the static library, the shell and a pkg-config file whose
# Libs.private lists what a static link needs ($(LDLIBS): LMDB, liburing,
# SQLite, zlib, and the CUDA static runtime when built with CUDA=1).
# `make uninstall` with the same PREFIX/DESTDIR removes exactly these files.

INSTALL      ?= install
INST_ROOT    := $(DESTDIR)$(PREFIX)
INST_INC     := $(INST_ROOT)/include
INST_LIB     := $(INST_ROOT)/lib
INST_BIN     := $(INST_ROOT)/bin
INST_PC      := $(INST_LIB)/pkgconfig

INSTALLED    := $(INST_INC)/gnndb.h \
                $(INST_LIB)/libgnndb.so.$(VERSION) \
                $(INST_LIB)/libgnndb.so.$(SOVERSION) \
                $(INST_LIB)/libgnndb.so \
                $(INST_LIB)/libgnndb.a \
                $(INST_BIN)/gnndb \
                $(INST_PC)/gnndb.pc

# The .pc names the final prefix (without DESTDIR: staging is not where the
# files will live). Regenerated when the prefix or the link flags change.
$(B)/gnndb.pc: gnndb.pc.in FORCE_PC
	@mkdir -p $(B)
	@sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	     -e 's|@LIBS_PRIVATE@|$(strip $(LDLIBS))|g' gnndb.pc.in > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

.PHONY: FORCE_PC
FORCE_PC:

install: $(B)/libgnndb.a $(B)/libgnndb.so $(B)/gnndb $(B)/gnndb.pc
	$(INSTALL) -d $(INST_INC) $(INST_LIB) $(INST_BIN) $(INST_PC)
	$(INSTALL) -m 644 include/gnndb.h $(INST_INC)/gnndb.h
	$(INSTALL) -m 755 $(B)/libgnndb.so.$(VERSION) $(INST_LIB)/libgnndb.so.$(VERSION)
	ln -sf libgnndb.so.$(VERSION) $(INST_LIB)/libgnndb.so.$(SOVERSION)
	ln -sf libgnndb.so.$(SOVERSION) $(INST_LIB)/libgnndb.so
	$(INSTALL) -m 644 $(B)/libgnndb.a $(INST_LIB)/libgnndb.a
	$(INSTALL) -m 755 $(B)/gnndb $(INST_BIN)/gnndb
	$(INSTALL) -m 644 $(B)/gnndb.pc $(INST_PC)/gnndb.pc

uninstall:
	rm -f $(INSTALLED)
